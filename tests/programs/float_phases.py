"""Float sums in loops in sequence (phases): per row, a running maximum, a float sum of the
differences to it, the differences written out, and the sum read in a later loop."""
import hwgen
from hwgen import float32


def build(R: int = 2, N: int = 7):
    @hwgen.region
    def float_phases(X: float32[R, N], Y: float32[R, N], S: float32[R], T: float32[R]):
        @hwgen.task
        def rows():
            for r in range(R):
                peak: float32 = X[r, 0]
                for n in range(N):
                    peak = max(peak, X[r, n])
                total: float32 = 0
                for n in range(N - 1):
                    total += X[r, n + 1] - peak
                S[r] = total
                for n in range(N):
                    Y[r, n] = X[r, n] - peak
                T[r] = total * 2
    return float_phases
