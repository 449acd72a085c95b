"""Float arithmetic in hardware: multiply, add, subtract, divide, comparisons and selects,
negation, absolute value, max/min (also clamping to float literals), exp, float constants and conversions (float to integer, integer
to float, float32 to float16), in float32 and bfloat16, on every element of random bit
patterns (NaNs, infinities, subnormals and signed zeros among them)."""
import hwgen
from hwgen import Stream, bfloat16, float16, float32, int8, int16


def build(N: int = 6):
    @hwgen.region
    def float_ops(A: float32[N], B: float32[N], H: bfloat16[N], I: int8[N], C: float32[N],
                  D: float32[N], E: bfloat16[N], Q: int16[N], R: float16[N], G: float32[N],
                  X: float32[N], L: float32[N]):
        s = Stream[float32, 2]

        @hwgen.task
        def first():
            for i in range(N):
                a: float32 = A[i]
                b: float32 = B[i]
                s.put(a * b - 1.5)
                C[i] = max(a, b) if a != b else -abs(a + b)
                Q[i] = a
                R[i] = a * b
                n: float32 = I[i]
                G[i] = n * 0.5
                X[i] = hwgen.exp(a - b)

        @hwgen.task
        def second():
            for i in range(N):
                x: float32 = s.get()
                h: bfloat16 = H[i]
                D[i] = x + x * 0.25 if x > 0.0 else x / 3.0
                E[i] = h * h + h / (h - 2.0)
                L[i] = min(max(x, -98.0), 157.0)

    return float_ops
