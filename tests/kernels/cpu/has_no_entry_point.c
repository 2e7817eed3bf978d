/* kforge-test: task=vector_add expect=link_error */
/* Defines only a helper and never kf_launch: there is nothing for the shim to call. */
float kf_helper_add(float a, float b)
{
	return a + b;
}
