"""A 2-D convolution on an output-stationary systolic array (stride 1, no padding):
O[f, y, x] = sum_{c, r, s} I[c, y + r, x + s] * W[f, c, r, s].

PE (f, x) owns output column x of filter f and walks the output rows y. Input pixels enter the
top row (PE (0, x) reads I[c, y + r, x + s]) and move down to the other filters; weights enter
the left column (PE (f, 0) reads W[f, c, r, s]) and move right to the other columns. Each PE
accumulates over (c, r, s) and writes O[f, y, x] when done.
"""
import numpy as np

import hwgen
from hwgen import R, S, Stream, int8, int32

TEST_SIZES = [{"F": 2, "C": 2, "H": 5, "W": 5, "KH": 2, "KW": 2},
              {"F": 3, "C": 1, "H": 4, "W": 6, "KH": 3, "KW": 2}]


def build(F: int = 4, C: int = 2, H: int = 8, W: int = 8, KH: int = 3, KW: int = 3):
    OH, OW = H - KH + 1, W - KW + 1

    @hwgen.region
    def conv2d_systolic(I: int8[C, H, W], Wt: int8[F, C, KH, KW] @ [S(0), R, R, R],
                        O: int32[F, OH, OW] @ [S(0), R, S(1)]):
        pix = Stream[int8, 2][F, OW]       # pix[f, x]: input pixels entering PE (f, x) from above
        wgt = Stream[int8, 2][F, OW]       # wgt[f, x]: weights entering PE (f, x) from the left

        @hwgen.task(mapping=[F, OW])
        def pe():
            f, x = hwgen.get_pid()
            for y in range(OH):
                acc: int32 = 0
                for c in range(C):
                    for r in range(KH):
                        for s in range(KW):
                            if f == 0:
                                p: int8 = I[c, y + r, x + s]
                            else:
                                p: int8 = pix[f, x].get()
                            if x == 0:
                                w: int8 = Wt[f, c, r, s]
                            else:
                                w: int8 = wgt[f, x].get()
                            if f < F - 1:
                                pix[f + 1, x].put(p)
                            if x < OW - 1:
                                wgt[f, x + 1].put(w)
                            acc += p * w
                O[f, y, x] = acc

    return conv2d_systolic


def reference(I, Wt):
    F, C, KH, KW = Wt.shape
    _, H, W = I.shape
    out = np.zeros((F, H - KH + 1, W - KW + 1), dtype=np.int64)
    for r in range(KH):
        for s in range(KW):
            patch = I[:, r:r + H - KH + 1, s:s + W - KW + 1].astype(np.int64)
            out += np.einsum("fc,cyx->fyx", Wt[:, :, r, s].astype(np.int64), patch)
    return {"O": out}
