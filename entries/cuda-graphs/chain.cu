// A chain of K short kernels over one array of `count` floats: the first writes y = x + 1, each
// of the K - 1 that follow adds one in place, so y = x + K proves every kernel of the chain ran
// once, in order.  Each kernel is as short as the chunk makes it; the chain is launched from the
// host one launch at a time, or replayed from a CUDA graph captured from the same launches.
extern "C" __global__ void first(const float* __restrict__ x, float* __restrict__ y, long long count) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) y[i] = x[i] + 1.0f;
}

extern "C" __global__ void bump(float* __restrict__ y, long long count) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) y[i] += 1.0f;
}
