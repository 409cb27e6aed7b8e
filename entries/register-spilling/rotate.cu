// A kernel that needs about N registers per thread for its data alone, compiled under
// decreasing register limits (nvcc -maxrregcount).  Each thread of a 128-thread block loads
// N = 64 floats, v[j] = x[base + j * 128 + t] (coalesced: a warp reads 32 neighbours for each j),
// then applies STEPS rounds of
//     v[j] <- a * v[j] + v[j + 1]      for j = 0 .. N - 1, in order, with v[N] meaning v[0]
// (so the last update already sees the new v[0]), and stores the v[j] back the same way.
// Every round reads every value, so all N stay live from the loads to the stores: nothing
// can be reordered away.  Under a limit below what the loop needs, ptxas keeps some of them
// in local memory (per-thread DRAM, cached in L1 and L2) and loads and stores them every round.
// No __launch_bounds__: it would take precedence over -maxrregcount.  Needs n % (128 * N) == 0.
#define N 64
#define STEPS 8
#define THREADS 128

extern "C" __global__ void rotate(const float* __restrict__ x, float* __restrict__ y,
                       float a, long long n) {
    long long base = blockIdx.x * (long long)(THREADS * N) + threadIdx.x;
    if (base >= n) return;
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = x[base + j * THREADS];
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
        for (int j = 0; j < N; ++j) v[j] = fmaf(a, v[j], v[(j + 1) % N]);
    }
#pragma unroll
    for (int j = 0; j < N; ++j) y[base + j * THREADS] = v[j];
}
