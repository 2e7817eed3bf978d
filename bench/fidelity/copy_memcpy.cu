/* The copy_f32 probe's candidate: the CUDA runtime's own device-to-device copy, the operation an
 * independent measurement (PyTorch's Tensor.copy_) times too. */
extern "C" int kf_launch(const float *x, float *out, int n, cudaStream_t stream)
{
	return cudaMemcpyAsync(out, x, (size_t)n * sizeof *x, cudaMemcpyDeviceToDevice, stream) != cudaSuccess;
}
