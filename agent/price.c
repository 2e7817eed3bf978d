/* The price table (see price.h). List prices in USD per million tokens, as published by each
 * vendor in 2025; reasoning tokens are billed as output. Update the table, not the code. */
#include "agent/price.h"

#include <math.h>
#include <string.h>

#define TOKENS_PER_PRICE_UNIT 1e6

static const struct family {
	const char *prefix;
	struct kf_price price;
} families[] = {
	{ "gpt-4o-mini", { 0.15, 0.60 } },
	{ "gpt-4o", { 2.50, 10.00 } },
	{ "gpt-4.1-nano", { 0.10, 0.40 } },
	{ "gpt-4.1-mini", { 0.40, 1.60 } },
	{ "gpt-4.1", { 2.00, 8.00 } },
	{ "gpt-5-nano", { 0.05, 0.40 } },
	{ "gpt-5-mini", { 0.25, 2.00 } },
	{ "gpt-5", { 1.25, 10.00 } },
	{ "o1-mini", { 1.10, 4.40 } },
	{ "o1", { 15.00, 60.00 } },
	{ "o3-mini", { 1.10, 4.40 } },
	{ "o3-pro", { 20.00, 80.00 } },
	{ "o3", { 2.00, 8.00 } },
	{ "o4-mini", { 1.10, 4.40 } },
	{ "claude-3-haiku", { 0.25, 1.25 } },
	{ "claude-3-5-haiku", { 0.80, 4.00 } },
	{ "claude-haiku-4", { 1.00, 5.00 } },
	{ "claude-3-5-sonnet", { 3.00, 15.00 } },
	{ "claude-3-7-sonnet", { 3.00, 15.00 } },
	{ "claude-sonnet-4", { 3.00, 15.00 } },
	{ "claude-3-opus", { 15.00, 75.00 } },
	{ "claude-opus-4", { 15.00, 75.00 } },
	{ "claude-opus-4-5", { 5.00, 25.00 } },
	{ "deepseek-chat", { 0.27, 1.10 } },
	{ "deepseek-reasoner", { 0.55, 2.19 } },
};

/* A family name ends where the model name ends or a version/date/tag suffix starts. */
static bool at_boundary(char c)
{
	return c == '\0' || c == '-' || c == ':' || c == '@' || c == '.' || c == '_';
}

bool kf_price_lookup(const char *model, struct kf_price *out)
{
	const char *slash = strrchr(model, '/');
	const char *name = slash ? slash + 1 : model;
	size_t best = 0;
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		size_t n = strlen(families[i].prefix);
		if (n > best && !strncmp(name, families[i].prefix, n) && at_boundary(name[n])) {
			best = n;
			*out = families[i].price;
		}
	}
	return best > 0;
}

double kf_price_cost(const struct kf_price *p, int64_t tokens_in, int64_t tokens_out)
{
	if (tokens_in < 0 || tokens_out < 0)
		return NAN;
	return ((double)tokens_in * p->in_per_mtok + (double)tokens_out * p->out_per_mtok) / TOKENS_PER_PRICE_UNIT;
}
