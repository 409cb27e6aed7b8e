// One pass over a managed input: y[i] = a * x[i], four floats a thread.  The same kernel runs in every
// variant; what differs is where x's pages are when it starts (see the entry).
extern "C" __global__ void scale_managed(const float4* __restrict__ x, float4* __restrict__ y, float a, long long n4)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x[i];
        y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
}
