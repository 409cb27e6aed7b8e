// The work: y = x + 1 over a slice [offset, offset + count).  The chain covers the
// array with one launch per chunk; the single launch covers it all at once.
extern "C" __global__ void add_one(const float* __restrict__ x, float* __restrict__ y,
                                   long long offset, long long count) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) y[offset + i] = x[offset + i] + 1.0f;
}
