#!/usr/bin/env bash
# The README's first command ends here: judge every bundled example kernel on the CPU backend
# (no network needed), print the leaderboard, and say how to point `kforge run` at an LLM.
set -u
cd "$(dirname "$0")/.."
db=${KFORGE_DB:-build/demo.db}
status=0
for f in examples/cpu/*.c; do
	task=$(basename "$f" .c)
	echo "== kforge submit --task $task $f"
	build/kforge submit --task "$task" --db "$db" --as examples "$f" || status=1
done
echo
build/kforge leaderboard --db "$db" --format md || status=1
cat <<MSG

Recorded in $db. Next:
  build/kforge leaderboard --db $db --format html -o board.html     # the same, as a page
  build/kforge submit --task vector_add --db $db my_kernel.c         # judge your own kernel
  build/kforge run --suite tasks/level1 --model MODEL --base-url http://localhost:8000/v1 --db $db
      # sample kernels from an OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama); or set
      # OPENAI_API_KEY / ANTHROPIC_API_KEY (with --provider anthropic) for a hosted model
MSG
exit $status
