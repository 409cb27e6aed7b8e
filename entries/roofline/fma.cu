// One kernel family: each thread loads one float, applies y = a*y + b K times as a
// dependent chain of fused multiply-adds (2 FLOPs each), and stores the result.  The
// bytes per element stay 8 while the FLOPs per element grow with K, which walks the
// kernel along the roofline's intensity axis.  K is a template parameter so the chain
// is fully unrolled: the loop adds no instructions of its own.  a and b arrive at run
// time, so the compiler cannot fold the chain (and without fast-math it does not
// reassociate floating-point arithmetic).
template <int K>
__device__ __forceinline__ float chain(float y, float a, float b) {
#pragma unroll
    for (int j = 0; j < K; ++j) y = fmaf(y, a, b);
    return y;
}

#define FMA_KERNEL(K)                                                                          \
    extern "C" __global__ void fma_##K(const float* __restrict__ x, float* __restrict__ y,    \
                                       float a, float b, long long n) {                        \
        long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;                        \
        if (i < n) y[i] = chain<K>(x[i], a, b);                                                \
    }

FMA_KERNEL(1)
FMA_KERNEL(2)
FMA_KERNEL(4)
FMA_KERNEL(8)
FMA_KERNEL(16)
FMA_KERNEL(32)
FMA_KERNEL(64)
FMA_KERNEL(128)
FMA_KERNEL(256)
FMA_KERNEL(512)
FMA_KERNEL(1024)

// The same chains with 16-byte accesses: each thread loads a float4, runs the K-step chain
// on each of its four floats and stores a float4.  Same bytes and FLOPs per element as
// fma_K; four times the bytes in flight per thread.  Needs n % 4 == 0.
#define FMA_KERNEL_VEC4(K)                                                                     \
    extern "C" __global__ void fma_##K##_vec4(const float* __restrict__ x, float* __restrict__ y, \
                                              float a, float b, long long n) {                 \
        long long i = 4 * (blockIdx.x * (long long)blockDim.x + threadIdx.x);                  \
        if (i < n) {                                                                           \
            float4 v = *reinterpret_cast<const float4*>(x + i);                                \
            v.x = chain<K>(v.x, a, b);                                                         \
            v.y = chain<K>(v.y, a, b);                                                         \
            v.z = chain<K>(v.z, a, b);                                                         \
            v.w = chain<K>(v.w, a, b);                                                         \
            *reinterpret_cast<float4*>(y + i) = v;                                             \
        }                                                                                      \
    }

FMA_KERNEL_VEC4(1)
FMA_KERNEL_VEC4(16)

// The 1,024-step chain with instruction-level parallelism: each thread takes ILP elements
// (i, i + T, i + 2T, ... with T the number of threads, so every load stays coalesced) and
// interleaves their chains step by step.  The FLOPs and bytes per element are those of
// fma_1024; only the number of independent FMAs a warp has ready at each step changes.
template <int ILP>
__device__ __forceinline__ void chain_ilp(const float* __restrict__ x, float* __restrict__ y,
                                          float a, float b, long long n) {
    long long threads = (long long)gridDim.x * blockDim.x;
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    float v[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) v[j] = i + j * threads < n ? x[i + j * threads] : 0.0f;
#pragma unroll 16
    for (int s = 0; s < 1024; ++s) {
#pragma unroll
        for (int j = 0; j < ILP; ++j) v[j] = fmaf(v[j], a, b);
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j)
        if (i + j * threads < n) y[i + j * threads] = v[j];
}

extern "C" __global__ void fma_1024_ilp4(const float* __restrict__ x, float* __restrict__ y,
                                         float a, float b, long long n) {
    chain_ilp<4>(x, y, a, b, n);
}

extern "C" __global__ void fma_1024_ilp8(const float* __restrict__ x, float* __restrict__ y,
                                         float a, float b, long long n) {
    chain_ilp<8>(x, y, a, b, n);
}

// The compute ceiling: 8 independent chains per thread (chain j adds b*(j+1)), so each
// warp always has 8 FMAs ready and the FMA pipes, not the chain's latency, set the pace.
// PEAK_STEPS FMAs per chain; the chains are summed at the end so none is dead code.
#define PEAK_CHAINS 8
#define PEAK_STEPS 512

extern "C" __global__ void fma_peak(const float* __restrict__ x, float* __restrict__ y,
                                    float a, float b, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v[PEAK_CHAINS], add[PEAK_CHAINS];
    float x0 = x[i];
#pragma unroll
    for (int j = 0; j < PEAK_CHAINS; ++j) {
        v[j] = x0;
        add[j] = b * (float)(j + 1);
    }
#pragma unroll 16
    for (int s = 0; s < PEAK_STEPS; ++s) {
#pragma unroll
        for (int j = 0; j < PEAK_CHAINS; ++j) v[j] = fmaf(v[j], a, add[j]);
    }
    float sum = v[0];
#pragma unroll
    for (int j = 1; j < PEAK_CHAINS; ++j) sum += v[j];
    y[i] = sum;
}
