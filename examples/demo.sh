#!/usr/bin/env bash
# The README's first command ends here: judge every bundled example kernel on the CPU backend
# (no network needed), print each verdict with its timing, and say where to go next.
set -u
cd "$(dirname "$0")/.."
db=${KFORGE_DB:-build/demo.db}
status=0
for f in examples/cpu/*.c; do
	task=$(basename "$f" .c)
	echo "== kforge submit --task $task $f"
	build/kforge submit --task "$task" --db "$db" --as examples "$f" || status=1
done
cat <<MSG

Recorded in $db (kforge show ID --db $db). Judge your own kernel with:
  build/kforge submit --task vector_add --db $db my_kernel.c
List the tasks and their entry points with: build/kforge tasks
MSG
exit $status
