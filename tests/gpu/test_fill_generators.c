/* Format v2's generated distributions (permutations, sorted offsets, page tables, top-k rows, choices,
 * block scales, normalised rows) relate elements to each other: the CUDA area's fill draws them with the
 * host's code, so the values every check and every timed call of a task sees on the GPU are the ones the
 * CPU judge draws from the same seed, byte for byte, never a device draw that ignores the generator. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/judge/area.h"
#include "eval/tasks/tensor.h"
#include "tests/support/corpus.h"

#define ELEMS 4096

/* The same dist drawn on device 0 by the area's fill and on the host by kf_tensor_fill, compared. */
static void expect_same_as_host(const char *what, struct kf_dist d, enum kf_dtype dt)
{
	kf_corpus_require_gpu();
	const uint64_t seed = 0x5eedull;
	const size_t bytes = ELEMS * kf_dtype_size(dt);
	const struct kf_area_ops *ops;
	kf_err err;
	cr_assert_eq(kf_area_ops_for(KF_BACKEND_CUDA, &ops, &err), KF_OK, "%s", err.msg);
	struct kf_area *a;
	cr_assert_eq(ops->create(bytes, 0, &a, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(ops->fill(a, 0, dt, ELEMS, &d, seed, &err), KF_OK, "%s: %s", what, err.msg);
	unsigned char *gpu = malloc(bytes), *host = malloc(bytes);
	cr_assert(gpu && host);
	cr_assert_eq(ops->download(a, 0, gpu, bytes, &err), KF_OK, "%s", err.msg);
	ops->destroy(a);
	struct kf_sampler *smp = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, seed);
	kf_tensor_fill(smp, &r, &d, dt, host, ELEMS);
	kf_sampler_free(smp);
	size_t first = 0;
	while (first < bytes && gpu[first] == host[first])
		first++;
	cr_expect_eq(first, bytes, "%s: the GPU's draw differs from the host's at byte %zu of %zu", what, first, bytes);
	free(gpu);
	free(host);
}

Test(gpu_fill, page_tables_are_distinct_pages_as_on_the_host)
{
	expect_same_as_host("page_table", (struct kf_dist){ .kind = KF_DIST_PAGE_TABLE, .range = 3 * ELEMS }, KF_DTYPE_I32);
}

Test(gpu_fill, sorted_offsets_rise_from_zero_to_the_range_as_on_the_host)
{
	expect_same_as_host("sorted_offsets", (struct kf_dist){ .kind = KF_DIST_SORTED_OFFSETS, .range = 1 << 20 },
			    KF_DTYPE_I32);
}

Test(gpu_fill, permutations_and_top_k_rows_are_drawn_per_row_as_on_the_host)
{
	expect_same_as_host("permutation", (struct kf_dist){ .kind = KF_DIST_PERMUTATION, .row = 64 }, KF_DTYPE_I32);
	expect_same_as_host("topk_indices", (struct kf_dist){ .kind = KF_DIST_TOPK_INDICES, .row = 8, .range = 128 },
			    KF_DTYPE_I32);
	expect_same_as_host("topk_weights", (struct kf_dist){ .kind = KF_DIST_TOPK_WEIGHTS, .row = 8 }, KF_DTYPE_F32);
	expect_same_as_host("normalized_rows", (struct kf_dist){ .kind = KF_DIST_NORMALIZED_ROWS, .row = 256 },
			    KF_DTYPE_BF16);
}

Test(gpu_fill, choices_constants_and_block_scales_are_drawn_as_on_the_host)
{
	expect_same_as_host("choice", (struct kf_dist){ .kind = KF_DIST_CHOICE, .n_choices = 3, .choices = { 0, 1, 7 } },
			    KF_DTYPE_U8);
	expect_same_as_host("constant", (struct kf_dist){ .kind = KF_DIST_CONSTANT, .n_choices = 1, .choices = { 3 } },
			    KF_DTYPE_F32);
	expect_same_as_host("block_scales", (struct kf_dist){ .kind = KF_DIST_BLOCK_SCALES, .a = -8, .b = 8 },
			    KF_DTYPE_E8M0);
}
