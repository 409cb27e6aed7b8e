// One memory-bound kernel, y = a * x, walked by a grid-stride loop.  Each thread has exactly
// one 4-byte load in flight: x and y are not __restrict__, so the compiler may not start the
// next iteration's load before this iteration's store (they could alias).  Bandwidth then
// depends on how many warps each SM holds at once, which is what the variants change:
//   block size (grid = one block per SM), dynamic shared memory per block (a launch
//   parameter: the kernel never touches it), or registers per thread (BALLAST below).

#ifndef BALLAST
#define BALLAST 0
#endif

// BALLAST > 0: each thread loads BALLAST floats before the loop and may store them after it
// (only when flag != 0, which the spec never sets).  Because y may alias x, the loads cannot
// be moved past the loop's stores, nor recomputed after it: the values stay live in registers
// across the whole loop.  That raises registers per thread by about BALLAST and so lowers the
// number of blocks the register file can hold, without changing the loop or its bytes.
extern "C" __global__ void scale(const float* x, float* y, float a, int flag, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long start = blockIdx.x * (long long)blockDim.x + threadIdx.x;
#if BALLAST > 0
    float keep[BALLAST];
#pragma unroll
    for (int j = 0; j < BALLAST; ++j) keep[j] = x[j];
#endif
    for (long long i = start; i < n; i += stride) y[i] = a * x[i];
#if BALLAST > 0
    if (flag) {
#pragma unroll
        for (int j = 0; j < BALLAST; ++j) y[start * BALLAST + j] = keep[j];
    }
#endif
}
