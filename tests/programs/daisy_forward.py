"""A daisy chain: task ``k`` of ``P`` puts its own value on its stream, then forwards the ``k``
values of the tasks before it; the last stream carries all ``P`` per round, in ``R`` rounds.
The put before (after) a forwarding loop takes the stream on a clock of its own (``lang.body``:
a phase of its own, or at the top of the body a segment), in the interpreter and in hardware
alike. ``UNROLL=1`` writes the rounds one after the other at the top of the body
(``meta_for``), else as a loop."""
import hwgen
from hwgen import int16, Stream


def build(P: int = 3, R: int = 2, UNROLL: int = 2):
    @hwgen.region
    def daisy_forward(A: int16[R, P], C: int16[R, P]):
        chain = Stream[int16, 2][P]

        @hwgen.task(mapping=[P])
        def node():
            k = hwgen.get_pid()
            with hwgen.meta_if(UNROLL == 1):
                with hwgen.meta_for(R) as r:
                    chain[k].put(A[r, k] ^ 5)
                    with hwgen.meta_if(k > 0):
                        for _ in range(k):
                            chain[k].put(chain[k - 1].get())
            with hwgen.meta_else():
                for r in range(R):
                    chain[k].put(A[r, k] ^ 5)
                    with hwgen.meta_if(k > 0):
                        for _ in range(k):
                            chain[k].put(chain[k - 1].get())

        @hwgen.task
        def sink():
            for r in range(R):
                for n in range(P):
                    C[r, n] = chain[P - 1].get()

    return daisy_forward


def reference(A):
    """Round ``r`` arrives last task first: ``A[r, P-1] ^ 5``, ..., ``A[r, 0] ^ 5``."""
    return {"C": A[:, ::-1] ^ 5}
