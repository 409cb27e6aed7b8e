// Three copies of a rows x cols float matrix (row-major), differing only in which
// element each thread of a warp touches.  Every element is read once and written
// once in all three; what changes is how a warp's 32 addresses fall into 32-byte sectors.

// Threads of a warp run along a row: 32 neighbours touch 128 contiguous bytes (4 sectors).
extern "C" __global__ void copy_rows(const float* __restrict__ a, float* __restrict__ b,
                                     long long rows, long long cols) {
    long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long r = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    if (r < rows && c < cols) b[r * cols + c] = a[r * cols + c];
}

// Threads of a warp run down a column: 32 addresses a row apart, one sector each.  The
// block's 8 warps (threadIdx.y) take 8 neighbouring columns, i.e. the other floats of
// the same sectors, at about the same time, so the caches can serve the rest.
extern "C" __global__ void copy_columns(const float* __restrict__ a, float* __restrict__ b,
                                        long long rows, long long cols) {
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long c = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    if (r < rows && c < cols) b[r * cols + c] = a[r * cols + c];
}

// Down a column again, one column per blockIdx.y, but the columns are visited 8 apart
// (0, 8, 16, ..., then 1, 9, 17, ...): the other 7 floats of a sector are next wanted
// only after a pass over the whole matrix, long after the L2 has let the sector go.
// Needs cols % 8 == 0.
extern "C" __global__ void copy_columns_spread(const float* __restrict__ a, float* __restrict__ b,
                                               long long rows, long long cols) {
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long groups = cols / 8;
    long long c = (blockIdx.y % groups) * 8 + blockIdx.y / groups;
    if (r < rows && c < cols) b[r * cols + c] = a[r * cols + c];
}

// Along a row again, but each thread copies four neighbouring floats with one 16-byte
// load and one 16-byte store: the same sectors as copy_rows, a quarter of the requests,
// and four times the bytes in flight per thread.  Needs cols % 4 == 0.
extern "C" __global__ void copy_rows_vec4(const float* __restrict__ a, float* __restrict__ b,
                                          long long rows, long long cols) {
    long long c4 = blockIdx.x * (long long)blockDim.x + threadIdx.x;  // index of a float4 in the row
    long long r = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    if (r < rows && 4 * c4 < cols) {
        long long i = r * cols + 4 * c4;
        *reinterpret_cast<float4*>(b + i) = *reinterpret_cast<const float4*>(a + i);
    }
}
