/* CPU reference for flash_attention (non-causal, GQA): the shared row kernel with every key visible.
 * Operands widened to fp32 once; rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

#define CAUSAL 0
#include "cpu/flash_attention_rows.h"
