// The same work with a divergent or a warp-uniform branch.  Each thread loads x, then runs
// `reps` rounds; in each round it applies one of two chains of CHAIN dependent FMAs:
//     path A: y <- fma(y, a, b)         (CHAIN fused multiply-adds)
//     path B: y <- (y * c) + d          (CHAIN multiplies and CHAIN adds, rounded separately)
// Which path a round takes alternates from round to round, starting from a parity q:
//     divergent: q = lane & 1            (odd and even lanes of one warp disagree every round)
//     uniform:   q = warp index & 1      (all 32 lanes of a warp agree every round)
// Every thread does exactly the same arithmetic in both kernels (reps / 2 rounds on each path,
// 2 FLOPs per step either way); only whether the lanes of a warp agree changes.
// A warp whose lanes disagree executes both chains each round, half of its lanes masked off.
//
// The two paths are different instructions (FFMA against FMUL + FADD: __fmul_rn and __fadd_rn
// are never contracted), so the compiler cannot merge them into one chain with selected
// coefficients, which it does when both paths are FMA chains.  The condition changes with the
// round, so the branch cannot be hoisted out of the loop either, and each path is long enough
// not to be turned into predicated code: the branch stays a branch, which is what the
// uniformity counter sees.
#define CHAIN 32

__device__ __forceinline__ float rounds(float y, unsigned q, float a, float b, float c, float d, int reps) {
#pragma unroll 1
    for (int it = 0; it < reps; ++it) {
        if ((q + it) & 1u) {
#pragma unroll
            for (int j = 0; j < CHAIN; ++j) y = __fadd_rn(__fmul_rn(y, c), d);
        } else {
#pragma unroll
            for (int j = 0; j < CHAIN; ++j) y = fmaf(y, a, b);
        }
    }
    return y;
}

extern "C" __global__ void branch_divergent(const float* __restrict__ x, float* __restrict__ y,
                                            float a, float b, float c, float d, int reps, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = rounds(x[i], (unsigned)(i & 1), a, b, c, d, reps);          // lane parity
}

extern "C" __global__ void branch_uniform(const float* __restrict__ x, float* __restrict__ y,
                                          float a, float b, float c, float d, int reps, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = rounds(x[i], (unsigned)((i >> 5) & 1), a, b, c, d, reps);   // warp parity
}
