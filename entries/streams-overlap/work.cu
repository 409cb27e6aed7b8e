// The compute stage of the pipeline: REPS dependent FMAs per element, in place on one chunk
// [offset, offset + count) of the device buffer.  y <- a*y + b converges to b / (1 - a); with
// a = 1 - 2**-10 and 2,048 steps, a**2048 is about 0.13, so the result still depends on x.
// reps is a kernel argument so the stage's length can be matched to a copy's on another link;
// 2,048 FMAs per element is about the time a PCIe Gen5 copy needs for its four bytes on an H200.
extern "C" __global__ void work(float* __restrict__ d, long long offset, long long count,
                                float a, float b, int reps) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= count) return;
    float y = d[offset + i];
    #pragma unroll 16
    for (int r = 0; r < reps; ++r) y = fmaf(y, a, b);
    d[offset + i] = y;
}
