/* Cost estimates (agent/price.c): model families matched by longest prefix at a word boundary,
 * vendor prefixes ignored, unknown models priced at nothing rather than guessed. */
#include <criterion/criterion.h>
#include <math.h>

#include "agent/price.h"

TestSuite(agent_price);

Test(agent_price, knows_the_main_families_by_longest_prefix)
{
	struct kf_price p;
	cr_assert(kf_price_lookup("gpt-4o-mini-2024-07-18", &p));
	cr_expect_eq(p.in_per_mtok, 0.15, "gpt-4o-mini is not gpt-4o");
	cr_assert(kf_price_lookup("gpt-4o", &p));
	cr_expect_eq(p.in_per_mtok, 2.50);
	cr_assert(kf_price_lookup("claude-sonnet-4-20250514", &p));
	cr_expect_eq(p.out_per_mtok, 15.0);
	cr_assert(kf_price_lookup("deepseek/deepseek-chat", &p), "a vendor/ prefix is ignored");
	cr_expect_eq(p.in_per_mtok, 0.27);
}

Test(agent_price, does_not_guess_unknown_models)
{
	struct kf_price p;
	cr_expect_not(kf_price_lookup("scripted", &p));
	cr_expect_not(kf_price_lookup("Qwen/Qwen2.5-Coder-32B-Instruct", &p));
	cr_expect_not(kf_price_lookup("gpt-4ox", &p), "a family matches only at a word boundary");
	cr_expect_not(kf_price_lookup("o3x", &p));
}

Test(agent_price, costs_input_and_output_tokens_separately)
{
	struct kf_price p = { 2.0, 8.0 };
	cr_expect_float_eq(kf_price_cost(&p, 1000000, 500000), 6.0, 1e-12);
	cr_expect(isnan(kf_price_cost(&p, -1, 10)), "unknown counts have no cost");
}
