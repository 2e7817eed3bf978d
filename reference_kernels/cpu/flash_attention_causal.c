/* CPU reference for flash_attention_causal (GQA): the shared row kernel with keys j <= i only.
 * Operands widened to fp32 once; rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

#define CAUSAL 1
#include "cpu/flash_attention_rows.h"
