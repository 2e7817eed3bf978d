/* Cost estimates: a small table of list prices per model family (USD per million input and output
 * tokens), matched on the model name. An unknown model has no price: its cost is recorded as null,
 * never guessed. The user can give the price of any model on the command line instead. */
#ifndef KF_PRICE_H
#define KF_PRICE_H

#include <stdbool.h>
#include <stdint.h>

struct kf_price {
	double in_per_mtok, out_per_mtok; /* USD per 1e6 tokens */
};

/* The longest family prefix that matches the model name (after any "vendor/" prefix) at a word
 * boundary; false when no family matches. */
bool kf_price_lookup(const char *model, struct kf_price *out);
/* USD for one request; NAN when a token count is unknown (< 0). */
double kf_price_cost(const struct kf_price *p, int64_t tokens_in, int64_t tokens_out);

#endif
