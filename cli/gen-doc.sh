#!/bin/sh
# Generates kforge's manual page kforge(1) or its bash completion from the help text the built
# binary prints (`kforge --help` and `kforge CMD --help`), so the three never disagree.
#   sh cli/gen-doc.sh man  build/kforge > build/kforge.1
#   sh cli/gen-doc.sh bash build/kforge > build/kforge.bash
# Help text conventions this relies on (cli/*.c): an option line is "  -x, --name ARG  text" or
# "  --name ARG  text" (two spaces or more before the text), a deeper-indented line continues it;
# the top-level help lists the commands as "  NAME  summary" under "commands:".
set -eu
what=$1
kforge=$2

commands=$("$kforge" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ -n "$commands" ] || { echo "gen-doc.sh: $kforge --help lists no command" >&2; exit 1; }

# The long options of a help text, one per line (without the dashes).
long_options() {
	awk '/^  (-[A-Za-z0-9], )?--[a-z]/ {
		line = $0; sub(/^  (-[A-Za-z0-9], )?--/, "", line); sub(/[ =].*/, "", line); print line }'
}
short_options() {
	awk '/^  -[A-Za-z0-9], --/ { print substr($0, 3, 2) }'
}

man_page() {
	version=$("$kforge" --version | awk '{ print $2 }')
	printf '.TH KFORGE 1 "" "kforge %s" "User Commands"\n' "$version"
	printf '.SH NAME\nkforge \\- judge kernels in a sandbox: correctness, timing, speed of light, leaderboards\n'
	{
		echo "@SECTION SYNOPSIS"
		"$kforge" --help
		for c in $commands; do
			echo "@SECTION kforge $c"
			"$kforge" "$c" --help
		done
		printf '@SECTION FILES\n'
		printf '  PREFIX/bin/kforge  the program\n'
		printf '  PREFIX/libexec/kforge/  the sandboxed runners (kforge-runner-cpu, kforge-runner-cuda)\n'
		printf '  PREFIX/share/kforge/  tasks/, reference_kernels/, prompts/ and the CPU calibration probe\n'
		printf '  ./kforge.db  the default database\n'
		printf '@SECTION SEE ALSO\n'
		printf 'README.md and docs/ in the source tree; kforge CMD --help.\n'
	} | awk '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		if (s ~ /^[.\047]/) s = "\\&" s
		return s
	}
	function flush_para() { if (para != "") { print esc(para); para = "" } }
	/^@SECTION / {
		flush_para(); if (nf) { print ".fi"; nf = 0 }
		title = substr($0, 10)
		top = title !~ /^kforge /
		if (title ~ /^kforge /) printf ".SH \"%s\"\n", toupper(title)
		else printf ".SH %s\n", title
		next
	}
	/^usage: / || (nf && /^       +[a-z]/) {
		flush_para()
		if (!nf) { print ".nf"; nf = 1 }
		print esc($0); next
	}
	nf { print ".fi"; nf = 0 }
	# The headings of the top-level help ("commands:", "options:", "environment:", "exit status:").
	top && /^[a-z]+( [a-z]+)*:$/ { flush_para(); printf ".SH \"%s\"\n", toupper(substr($0, 1, length($0) - 1)); next }
	/^$/ { flush_para(); print ".PP"; next }
	# A named definition ("  name: text", the leaderboard formulas).
	/^  [a-z_@]+: / {
		flush_para()
		term = $0; sub(/^  /, "", term); sub(/: .*/, "", term)
		text = $0; sub(/^  [a-z_@]+: /, "", text)
		printf ".TP\n\\fB%s\\fR\n", esc(term)
		para = text
		next
	}
	# An option or a two-column item: a term, two spaces or more, its text.
	/^  [^ ]+( [^ ]+)*   *[^ ]/ && !/^  kforge / {
		flush_para()
		line = $0; sub(/^  /, "", line)
		term = line; sub(/   *.*/, "", term)
		text = line; sub(/^[^ ]+( [^ ]+)*   */, "", text)
		if (index(line, term) == 1 && text == line) text = ""
		printf ".TP\n\\fB%s\\fR\n", esc(term)
		para = text
		next
	}
	# The continuation of an item: deeper indentation.
	/^   +[^ ]/ && para != "" { line = $0; sub(/^ +/, "", line); para = para " " line; next }
	# Anything else indented (examples, usage lines of other forms): kept as written.
	/^ / { flush_para(); print ".nf"; print esc($0); print ".fi"; next }
	# A new sentence that names a topic ("Exit codes: ...", "Example: ...") starts a line of its own.
	/^[A-Z][A-Za-z ]*: / { flush_para(); print ".br"; para = $0; next }
	{ if (para != "" && para !~ /[.:]$/) para = para " " $0; else { flush_para(); para = $0 } }
	/:$/ { flush_para(); print ".br" }
	END { flush_para(); if (nf) print ".fi" }'
}

bash_completion() {
	printf '# bash completion for kforge, generated from its --help (cli/gen-doc.sh); do not edit.\n'
	printf '_kforge()\n{\n'
	printf '\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i\n'
	printf '\tfor ((i = 1; i < COMP_CWORD; i++)); do\n'
	printf '\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n'
	printf '\tdone\n'
	printf '\tif [[ -z $cmd ]]; then\n'
	printf '\t\tCOMPREPLY=($(compgen -W "%s -h --help -V --version" -- "$cur"))\n' "$(echo $commands)"
	printf '\t\treturn\n\tfi\n'
	printf '\tcase $prev in\n'
	printf '\t--task|-t) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" tasks 2>/dev/null | awk '"'"'NR > 1 && NF > 2 { print $1 }'"'"')" -- "$cur")); return ;;\n'
	printf '\t--backend|-b) COMPREPLY=($(compgen -W "cpu cuda" -- "$cur")); return ;;\n'
	printf '\t--format|-f) COMPREPLY=($(compgen -W "csv json md html" -- "$cur")); return ;;\n'
	printf '\t--db|--out|-o|--output|--suite) COMPREPLY=($(compgen -f -- "$cur")); return ;;\n'
	printf '\tesac\n'
	printf '\tlocal opts\n'
	printf '\tcase $cmd in\n'
	for c in $commands; do
		help=$("$kforge" "$c" --help)
		opts=$( (echo "$help" | short_options; echo "$help" | long_options | sed 's/^/--/'; echo -h; echo --help) |
			sort -u | tr '\n' ' ')
		printf '\t%s) opts="%s" ;;\n' "$c" "${opts% }"
	done
	printf '\t*) opts="" ;;\n'
	printf '\tesac\n'
	printf '\tif [[ $cur == -* ]]; then\n'
	printf '\t\tCOMPREPLY=($(compgen -W "$opts" -- "$cur"))\n'
	printf '\telse\n'
	printf '\t\tCOMPREPLY=($(compgen -f -- "$cur"))\n'
	printf '\tfi\n'
	printf '}\ncomplete -F _kforge kforge\n'
}

case $what in
man) man_page ;;
bash) bash_completion ;;
*) echo "usage: gen-doc.sh man|bash KFORGE" >&2; exit 2 ;;
esac
