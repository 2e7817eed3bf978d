/* CPU reference for flash_attention_causal (GQA): the shared row kernel with keys j <= i only. */
#define CAUSAL 1
#include "cpu/flash_attention_rows.h"
