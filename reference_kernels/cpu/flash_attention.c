/* CPU reference for flash_attention (non-causal, GQA): the shared row kernel with every key visible. */
#define CAUSAL 0
#include "cpu/flash_attention_rows.h"
