#!/usr/bin/env bash
# The README's first command ends here: judge a representative subset of the bundled example kernels
# on the CPU backend (no network needed), print the leaderboard, and say how to point `kforge run` at an
# LLM. The subset is one or two tasks of each family, so the demo stays within a few minutes on a 2-core
# machine as the suite grows; `bash bench/judge_examples.sh` judges every example.
set -u
cd "$(dirname "$0")/.."
db=${KFORGE_DB:-build/demo.db}
# elementwise, reductions, row softmax, norm, scan, GEMM, convolution and pooling, loss, quantised,
# level-2 fusions, level-3 blocks
demo_tasks="vector_add gelu_tanh_bf16 sum_rows argmax_rows softmax_rows cross_entropy_rows layernorm_bf16
	cumsum_rows matmul_bf16 conv1d_depthwise maxpool2d mse_loss quantized_linear_u8 gemm_bias_gelu
	flash_attention selective_scan"
status=0
for task in $demo_tasks; do
	f=examples/cpu/$task.c
	echo "== kforge submit --task $task $f"
	build/kforge submit --task "$task" --db "$db" --as examples "$f" || status=1
done
echo
build/kforge leaderboard --db "$db" --format md || status=1
cat <<MSG

Recorded in $db. Next:
  bash bench/judge_examples.sh                                       # every example, not just these
  build/kforge leaderboard --db $db --format html -o board.html     # the same, as a page
  build/kforge submit --task vector_add --db $db my_kernel.c         # judge your own kernel
  build/kforge run --suite tasks/level1 --model MODEL --base-url http://localhost:8000/v1 --db $db
      # sample kernels from an OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama); or set
      # OPENAI_API_KEY / ANTHROPIC_API_KEY (with --provider anthropic) for a hosted model
MSG
exit $status
