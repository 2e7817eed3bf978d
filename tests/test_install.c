/* kforge as it is installed and documented: `make install` into a staging DESTDIR gives a kforge that
 * judges a kernel from any directory with no environment variable; kforge(1) and the bash
 * completion are generated from the help texts the CLI prints, so they name every option of every
 * command; `man -l` renders the page. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "tests/support/cli.h"

#define QUICK_TIMEOUT_S 30.0
#define TEST_TIMEOUT_S 600.0
#define EXCERPT "%.600s"
#define OUTPUT_MAX (4u << 20)
#define PREFIX "/opt/kf"

static const char *const commands[] = { "tasks", "submit", "show", "run", "leaderboard", "export", "rank" };
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static char tmpdir[PATH_MAX];

static void make_tmpdir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void clean_up(void)
{
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(install, .init = make_tmpdir, .fini = clean_up);

/* Runs a shell command, its output in <tmpdir>/<name>.out; returns its exit status and the output. */
static int shell(const char *name, const char *command, char **output)
{
	char out_path[PATH_MAX + 64];
	snprintf(out_path, sizeof out_path, "%s/%s.out", tmpdir, name);
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd, "(%s) > '%s' 2>&1", command, out_path);
	int status = system(cmd.data);
	kf_buf_free(&cmd);
	size_t len = 0;
	kf_err err;
	*output = NULL;
	if (kf_read_file(out_path, OUTPUT_MAX, output, &len, &err) != KF_OK)
		*output = kf_xstrdup("");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The folder of the kforge under test (the build folder, or an install's bin/). */
static void kforge_dir(char out[PATH_MAX])
{
	snprintf(out, PATH_MAX, "%s", kf_cli_kforge_path());
	char *slash = strrchr(out, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
}

/* cli/gen-doc.sh's output of kind (man or bash) for the kforge under test. */
static char *generate(const char *kind)
{
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd, "sh '%s/cli/gen-doc.sh' %s '%s'", kf_home(), kind, kf_cli_kforge_path());
	char *out = NULL;
	int rc = shell(kind, cmd.data, &out);
	kf_buf_free(&cmd);
	cr_assert_eq(rc, 0, "gen-doc.sh %s failed: " EXCERPT, kind, out);
	return out;
}

/* Writes text to the test's temporary directory as name; its path in path. */
static void save_in_tmpdir(const char *name, const char *text, char *path, size_t len)
{
	kf_err err;
	snprintf(path, len, "%s/%s", tmpdir, name);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
}

/* Every long option a command's --help lists ("  --name" or "  -x, --name" at the start of a line),
 * each checked by check(name, ctx). */
static void each_option(void (*check)(const char *cmd, const char *option, const void *ctx), const void *ctx)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const char *args[] = { commands[i], "--help", NULL };
		struct kf_cli_result r;
		kf_err err;
		cr_assert_eq(kf_cli_run(args, NULL, QUICK_TIMEOUT_S, &r, &err), KF_OK, "%s", err.msg);
		int n = 0;
		for (const char *line = r.out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			const char *o = line;
			if (!strncmp(o, "  -", 3) && o[3] != '-' && !strncmp(o + 4, ", --", 4))
				o += 6;
			else if (!strncmp(o, "  --", 4))
				o += 2;
			else
				continue;
			char option[64];
			size_t len = strcspn(o, " =\n");
			snprintf(option, sizeof option, "%.*s", (int)len, o);
			check(commands[i], option, ctx);
			n++;
		}
		cr_expect_gt(n, 0, "kforge %s --help lists no option", commands[i]);
		kf_cli_result_free(&r);
	}
}

/* groff writes every '-' of an option as "\-". */
static void in_man_page(const char *cmd, const char *option, const void *ctx)
{
	kf_buf escaped = KF_BUF_INIT;
	for (const char *p = option; *p; p++)
		kf_buf_addf(&escaped, *p == '-' ? "\\-" : "%c", *p);
	cr_expect(strstr(ctx, escaped.data), "kforge(1) lacks %s of kforge %s", option, cmd);
	kf_buf_free(&escaped);
}

Test(install, the_man_page_names_every_option_of_every_command)
{
	char *page = generate("man");
	cr_expect(!strncmp(page, ".TH KFORGE 1", strlen(".TH KFORGE 1")), EXCERPT, page);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		char section[64];
		snprintf(section, sizeof section, ".SH \"KFORGE %s\"", commands[i]);
		for (char *p = section; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
		cr_expect(strstr(page, section), "kforge(1) has no section %s", section);
	}
	each_option(in_man_page, page);
	const char *const sections[] = { ".SH \"COMMANDS\"", ".SH \"OPTIONS\"", ".SH \"ENVIRONMENT\"",
					 ".SH \"EXIT STATUS\"" };
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		cr_expect(strstr(page, sections[i]), "kforge(1) lacks %s", sections[i]);
	free(page);
}

Test(install, man_renders_the_page)
{
	if (system("command -v man > /dev/null 2>&1") != 0)
		cr_skip_test("man is not installed");
	char *page = generate("man");
	char path[PATH_MAX + 16];
	save_in_tmpdir("kforge.1", page, path, sizeof path);
	free(page);
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd, "MANWIDTH=100 MANPAGER=cat PAGER=cat man -l '%s'", path);
	char *shown = NULL;
	int rc = shell("man", cmd.data, &shown);
	kf_buf_free(&cmd);
	cr_expect_eq(rc, 0, "man -l failed: " EXCERPT, shown);
	cr_expect(strstr(shown, "KFORGE SUBMIT") && strstr(shown, "--task"), EXCERPT, shown);
	free(shown);
}

static void in_completion(const char *cmd, const char *option, const void *ctx)
{
	/* Each command's line: `\tCMD) opts="... --option ..." ;;` */
	char head[64];
	snprintf(head, sizeof head, "\t%s) opts=\"", cmd);
	const char *line = strstr(ctx, head);
	cr_assert_not_null(line, "the completion has no case for %s", cmd);
	size_t len = strcspn(line, "\n");
	char word[80];
	snprintf(word, sizeof word, "%s ", option);
	char *copy = kf_xstrdup(line);
	copy[len] = '\0';
	char *end = strrchr(copy, '"');
	if (end)
		*end = ' ';
	cr_expect(strstr(copy, word), "the completion of kforge %s lacks %s: %s", cmd, option, copy);
	free(copy);
}

Test(install, bash_completes_the_options_of_each_command)
{
	char *script = generate("bash");
	each_option(in_completion, script);
	char path[PATH_MAX + 16];
	save_in_tmpdir("kforge.bash", script, path, sizeof path);
	free(script);
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd,
		    "bash -c 'source \"%s\"; COMP_WORDS=(kforge submit --ta); COMP_CWORD=2; _kforge; echo \"${COMPREPLY[*]}\";"
		    " COMP_WORDS=(kforge lead); COMP_CWORD=1; _kforge; echo \"${COMPREPLY[*]}\"'",
		    path);
	char *out = NULL;
	int rc = shell("complete", cmd.data, &out);
	kf_buf_free(&cmd);
	cr_expect_eq(rc, 0, EXCERPT, out);
	cr_expect_str_eq(out, "--task\nleaderboard\n");
	free(out);
}

Test(install, an_installed_kforge_judges_from_another_directory, .timeout = TEST_TIMEOUT_S)
{
	if (getenv(KF_CLI_INSTALLED_ENV))
		cr_skip_test("the tests run against an installed kforge: its own install is what they test");
	char build[PATH_MAX], stage[PATH_MAX + 16], work[PATH_MAX + 16];
	kforge_dir(build);
	snprintf(stage, sizeof stage, "%s/stage", tmpdir);
	snprintf(work, sizeof work, "%s/work", tmpdir);
	kf_err err;
	cr_assert_eq(kf_mkdir_p(work, &err), KF_OK, "%s", err.msg);
	/* make install from the tree the tests were built in, into a staging DESTDIR; the running make's
	 * jobserver is not this one's. */
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd,
		    "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' install BUILD='%s' DESTDIR='%s' PREFIX=" PREFIX,
		    kf_home(), build, stage);
	char *out = NULL;
	int rc = shell("install", cmd.data, &out);
	cr_assert_eq(rc, 0, "make install failed: " EXCERPT, out);
	free(out);
	const char *const installed[] = { "/bin/kforge", "/libexec/kforge/kforge-runner-cpu",
					  "/share/kforge/tasks/level1/vector_add.json",
					  "/share/kforge/reference_kernels/cpu/vector_add.c", "/share/kforge/prompts",
					  "/share/kforge/eval/judge/calib/cpu_peaks.c", "/share/man/man1/kforge.1",
					  "/share/bash-completion/completions/kforge" };
	for (size_t i = 0; i < sizeof installed / sizeof installed[0]; i++) {
		char path[PATH_MAX * 2];
		snprintf(path, sizeof path, "%s" PREFIX "%s", stage, installed[i]);
		cr_expect_eq(access(path, F_OK), 0, "make install did not install %s", path);
	}

	/* From another directory, with nothing pointing at the source tree or the build. */
	char example[PATH_MAX + 64];
	snprintf(example, sizeof example, "%s/examples/cpu/vector_add.c", kf_home());
	kf_buf_reset(&cmd);
	kf_buf_addf(&cmd,
		    "cd '%s' && cp '%s' . && env -u KFORGE_HOME -u KFORGE_TASKS -u KFORGE_PROMPTS -u KFORGE_DB "
		    "'%s" PREFIX "/bin/kforge' submit --task vector_add vector_add.c --json",
		    work, example, stage);
	rc = shell("submit", cmd.data, &out);
	kf_buf_free(&cmd);
	cr_expect_eq(rc, 0, "the installed kforge: exit %d: " EXCERPT, rc, out);
	cr_expect(strstr(out, "\"verdict\":\t\"ok\""), "the installed kforge did not judge the example ok: " EXCERPT, out);
	char db[PATH_MAX + 16];
	snprintf(db, sizeof db, "%s/kforge.db", work);
	cr_expect_eq(access(db, F_OK), 0, "the database is not in the working directory");
	free(out);
}

/* A path the README names, relative to the repository root: kept when it names a file of the clone's
 * own folders (docs/, examples/, ...) or leaves the clone (../). */
static bool is_repo_path(const char *p, size_t len)
{
	static const char *const roots[] = { "../", "docs/", "examples/", "tests/", "bench/", "cli/", "tasks/",
					     "reference_kernels/", "prompts/", "eval/", "sandbox/", "agent/", "db/", "common/" };
	if (memchr(p, ' ', len) || memchr(p, '*', len) || memchr(p, '<', len) || memchr(p, '$', len))
		return false;
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
		if (len > strlen(roots[i]) && !strncmp(p, roots[i], strlen(roots[i])))
			return true;
	return false;
}

Test(install, the_readme_names_only_files_a_clone_has)
{
	char path[PATH_MAX + 16], *text = NULL;
	size_t len = 0;
	kf_err err;
	snprintf(path, sizeof path, "%s/README.md", kf_home());
	cr_assert_eq(kf_read_file(path, OUTPUT_MAX, &text, &len, &err), KF_OK, "%s", err.msg);
	int checked = 0;
	for (const char *p = text; (p = strpbrk(p, "`(")); p++) {
		const char *close = strchr(p + 1, *p == '`' ? '`' : ')');
		if (!close || (*p == '(' && (p == text || p[-1] != ']')))
			continue;
		const char *name = p + 1;
		size_t n = (size_t)(close - name);
		if (!is_repo_path(name, n)) {
			if (*p == '`')
				p = close;
			continue;
		}
		char file[PATH_MAX * 2];
		snprintf(file, sizeof file, "%s/%.*s", kf_home(), (int)n, name);
		cr_expect(strncmp(name, "../", 3) != 0, "the README names %.*s, outside the repository", (int)n, name);
		cr_expect_eq(access(file, F_OK), 0, "the README names %.*s, which the repository lacks", (int)n, name);
		checked++;
		p = close;
	}
	cr_expect_gt(checked, 10, "the README names hardly any file: is the scan broken?");
	free(text);
}

/* `make -n -B` with marker flags: every compile of a C file gets CPPFLAGS and CFLAGS, every link gets
 * LDFLAGS, and every one of them runs the CC given. (A dry run: nothing is built.) */
Test(install, the_build_passes_the_users_cc_and_flags_everywhere)
{
	kf_buf cmd = KF_BUF_INIT;
	kf_buf_addf(&cmd,
		    "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -B -C '%s' BUILD='%s/b' CC=kf-test-cc "
		    "CPPFLAGS=-DKF_CPPFLAGS_MARK CFLAGS='-O1 -DKF_CFLAGS_MARK' LDFLAGS=-Wl,--kf-ldflags-mark all",
		    kf_home(), tmpdir);
	char *out = NULL;
	int rc = shell("dry-run", cmd.data, &out);
	kf_buf_free(&cmd);
	cr_assert_eq(rc, 0, "make -n failed: " EXCERPT, out);
	int compiles = 0, links = 0;
	for (char *line = out; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		bool cc = !strncmp(line, "kf-test-cc ", strlen("kf-test-cc "));
		bool compile = cc && strstr(line, " -c ");
		bool link = cc && !compile && strstr(line, " -o ");
		if (compile) {
			compiles++;
			cr_expect(strstr(line, "-DKF_CPPFLAGS_MARK") && strstr(line, "-DKF_CFLAGS_MARK"),
				  "a compile without CPPFLAGS or CFLAGS: %.300s", line);
		}
		if (link) {
			links++;
			cr_expect(strstr(line, "--kf-ldflags-mark"), "a link without LDFLAGS: %.300s", line);
		}
		cr_expect(!strstr(line, " -O2 -g ") || !cc, "kforge's own default flags beside the user's: %.300s", line);
		line = end ? end + 1 : NULL;
	}
	cr_expect_gt(compiles, 20, "make -n showed %d compiles run by CC: " EXCERPT, compiles, out);
	cr_expect_geq(links, 2, "make -n showed %d links run by CC (kforge, its runner)", links);
	free(out);
}
