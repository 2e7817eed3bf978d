/* The HTML leaderboard in a real browser: headless Chromium (Debian's `chromium`) opens the golden page
 * (tests/golden/leaderboard/leaderboard.html, which test_leaderboard.c proves is what kforge writes),
 * logs no console message, lays out every chart element with a non-empty box, sorts a table on a
 * header click, and takes a screenshot. Skipped, with a message, where chromium is not installed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "tests/support/cli.h"

#define GOLDEN_PAGE "tests/golden/leaderboard/leaderboard.html"
#define BROWSER_TIMEOUT_S 60.0
#define POLL_NS 20000000L
#define FILE_MAX_BYTES (16u << 20)
#define WINDOW_W 1280
#define WINDOW_H 2600
#define WINDOW_SIZE_ARG "--window-size=1280,2600"
#define PNG_IHDR_WIDTH_OFFSET 16
#define PNG_IHDR_HEIGHT_OFFSET 20
#define PNG_MIN_BYTES 20000 /* a blank page of this size compresses to a few kB */
/* What the golden page holds: 3 groups; (3 + 1 + 2) sources x 6 thresholds; 4 + 1 + 1 correct kernels. */
#define EXPECTED_CHARTS 6
#define EXPECTED_POINTS 36
#define EXPECTED_BARS 6

static const char *const browsers[] = { "chromium", "chromium-browser" };
#define N_BROWSERS (sizeof browsers / sizeof browsers[0])

static char dir[PATH_MAX];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(dir, &err), KF_OK, "%s", err.msg);
}

static void teardown(void)
{
	if (dir[0])
		kf_rm_rf(dir);
}

TestSuite(report_html, .init = setup, .fini = teardown);

/* The first browser found on PATH, or NULL. */
static const char *find_browser(char out[PATH_MAX])
{
	const char *path = getenv("PATH");
	for (size_t b = 0; b < N_BROWSERS; b++) {
		char *copy = kf_xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(out, PATH_MAX, "%s/%s", d, browsers[b]);
			if (access(out, X_OK) == 0) {
				free(copy);
				return out;
			}
		}
		free(copy);
	}
	return NULL;
}

/* Runs argv with stdout and stderr in files, HOME in the temporary directory, and a wall limit; the
 * browser's whole process group is killed afterwards, so no helper outlives the test. */
static int run_browser(char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int errfd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (out < 0 || errfd < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(errfd, STDERR_FILENO) < 0)
			_exit(127);
		setenv("HOME", dir, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	int status = 0;
	struct timespec tick = { 0, POLL_NS };
	double waited = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited > BROWSER_TIMEOUT_S) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("%s did not finish within %.0f s", argv[0], BROWSER_TIMEOUT_S);
		}
		nanosleep(&tick, NULL);
		waited += POLL_NS / 1e9;
	}
	kill(-pid, SIGKILL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	kf_err err;
	cr_assert_eq(kf_read_file(path, FILE_MAX_BYTES, &text, NULL, &err), KF_OK, "%s", err.msg);
	return text;
}

/* Chromium prints every console message of the page as a line with ":CONSOLE" on stderr. */
static void expect_no_console_output(const char *err_path)
{
	char *log = slurp(err_path);
	const char *line = strstr(log, ":CONSOLE");
	cr_expect_null(line, "the page wrote to the console: %.300s", line ? line : "");
	free(log);
}

static void browser_args(char *argv[], int *n, const char *browser, const char *profile)
{
	static char profile_arg[PATH_MAX + 32];
	snprintf(profile_arg, sizeof profile_arg, "--user-data-dir=%s", profile);
	*n = 0;
	argv[(*n)++] = (char *)browser;
	argv[(*n)++] = "--headless";
	argv[(*n)++] = "--no-sandbox"; /* CI runs as root, where Chromium's own sandbox refuses to start */
	argv[(*n)++] = "--disable-gpu";
	argv[(*n)++] = "--no-first-run";
	argv[(*n)++] = "--enable-logging=stderr";
	argv[(*n)++] = "--v=0";
	argv[(*n)++] = profile_arg;
}

/* Captures errors from the very start, before the page's own script runs. */
static const char probe_head[] =
	"<script>window.kfErrors = [];"
	"window.addEventListener('error', function (e) { window.kfErrors.push(String(e.message)); });</script>\n";

/* After the page's script: counts chart elements that were laid out with a non-empty box, clicks the
 * speedup header of the first per-task table twice and checks the order, and leaves the findings in
 * <pre id="kf-probe"> as " name=value" words. */
static const char probe_tail[] =
	"<script>\n"
	"(function () {\n"
	"  function shown(el) { var b = el.getBBox(); return b.width > 0 && b.height > 0; }\n"
	"  function count(sel) {\n"
	"    var n = 0; document.querySelectorAll(sel).forEach(function (e) { if (shown(e)) n++; }); return n; }\n"
	"  var charts = 0;\n"
	"  document.querySelectorAll('svg.kf-chart').forEach(function (s) {\n"
	"    var r = s.getBoundingClientRect(); if (r.width > 0 && r.height > 0 && s.childElementCount > 0) charts++; });\n"
	"  function column(table, col) { return Array.prototype.map.call(table.tBodies[0].rows, function (r) {\n"
	"    var v = r.cells[col].getAttribute('data-v'); return v === '' ? null : parseFloat(v); }); }\n"
	"  function ordered(vals, asc) { var seenNull = false;\n"
	"    for (var i = 0; i < vals.length; i++) { if (vals[i] === null) { seenNull = true; continue; }\n"
	"      if (seenNull) return false;\n"
	"      if (i > 0 && vals[i - 1] !== null && (asc ? vals[i - 1] > vals[i] : vals[i - 1] < vals[i])) return false; }\n"
	"    return true; }\n"
	"  var table = document.querySelector('table.rows'), heads = table.tHead.rows[0].cells, col = -1;\n"
	"  for (var i = 0; i < heads.length; i++) if (heads[i].textContent === 'speedup') col = i;\n"
	"  heads[col].click(); var asc = ordered(column(table, col), true);\n"
	"  heads[col].click(); var desc = ordered(column(table, col), false);\n"
	"  var first = column(table, col)[0];\n"
	"  var pre = document.createElement('pre'); pre.id = 'kf-probe';\n"
	"  pre.textContent = ' charts=' + charts + ' points=' + count('svg.kf-fastp circle.kf-point') +\n"
	"    ' bars=' + count('svg.kf-sol rect.kf-bar') + ' sorted=' + (asc && desc && first === 4 ? 1 : 0) +\n"
	"    ' errors=' + window.kfErrors.length + ' first_error=' + (window.kfErrors[0] || '').replace(/\\s/g, '_');\n"
	"  document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

/* The golden page with the probes spliced in after <head> and before </body>. */
static void write_probed_page(const char *page, const char *path)
{
	const char *head = strstr(page, "<head>\n"), *body_end = strstr(page, "</body>");
	cr_assert(head && body_end, "the page has no <head> or no </body>");
	head += strlen("<head>\n");
	kf_buf b = KF_BUF_INIT;
	kf_err err;
	kf_buf_add(&b, page, (size_t)(head - page));
	kf_buf_adds(&b, probe_head);
	kf_buf_add(&b, head, (size_t)(body_end - head));
	kf_buf_adds(&b, probe_tail);
	kf_buf_adds(&b, body_end);
	cr_assert_eq(kf_write_file(path, b.data, b.len, &err), KF_OK, "%s", err.msg);
	kf_buf_free(&b);
}

static int probe_value(const char *dom, const char *name)
{
	const char *probe = strstr(dom, "<pre id=\"kf-probe\">");
	cr_assert_not_null(probe, "the probe never ran (a script error stopped it?)");
	char key[64];
	snprintf(key, sizeof key, " %s=", name);
	const char *at = strstr(probe, key);
	cr_assert_not_null(at, "the probe did not report %s", name);
	return atoi(at + strlen(key));
}

static const char *golden_page(char out[PATH_MAX])
{
	snprintf(out, PATH_MAX, "%s/%s", kf_home(), GOLDEN_PAGE);
	return out;
}

Test(report_html, renders_the_charts_without_console_errors_and_sorts_on_click, .timeout = 2 * BROWSER_TIMEOUT_S)
{
	char browser[PATH_MAX], page_path[PATH_MAX], probed[PATH_MAX + 32], url[PATH_MAX + 48];
	char out[PATH_MAX + 32], err_log[PATH_MAX + 32], profile[PATH_MAX + 32];
	if (!find_browser(browser))
		cr_skip_test("chromium is not installed (apt-get install chromium): the headless HTML check is skipped");
	char *page = slurp(golden_page(page_path));
	snprintf(probed, sizeof probed, "%s/probed.html", dir);
	write_probed_page(page, probed);
	free(page);
	snprintf(url, sizeof url, "file://%s", probed);
	snprintf(out, sizeof out, "%s/dom.html", dir);
	snprintf(err_log, sizeof err_log, "%s/browser.log", dir);
	snprintf(profile, sizeof profile, "%s/profile", dir);
	char *argv[16];
	int n;
	browser_args(argv, &n, browser, profile);
	argv[n++] = "--dump-dom";
	argv[n++] = url;
	argv[n] = NULL;
	int rc = run_browser(argv, out, err_log);
	char *dom = slurp(out);
	cr_assert_eq(rc, 0, "%s exited with %d; its log is in %s", browser, rc, err_log);
	expect_no_console_output(err_log);
	cr_expect_eq(probe_value(dom, "errors"), 0, "script errors on the page: %.300s", strstr(dom, "first_error="));
	cr_expect_eq(probe_value(dom, "charts"), EXPECTED_CHARTS, "charts laid out");
	cr_expect_eq(probe_value(dom, "points"), EXPECTED_POINTS, "fast_p points with a non-empty box");
	cr_expect_eq(probe_value(dom, "bars"), EXPECTED_BARS, "SOL bars with a non-empty box");
	cr_expect_eq(probe_value(dom, "sorted"), 1, "a click on 'speedup' did not sort the per-task table");
	free(dom);
}

Test(report_html, takes_a_screenshot_of_the_page_as_shipped, .timeout = 2 * BROWSER_TIMEOUT_S)
{
	char browser[PATH_MAX], page_path[PATH_MAX], url[PATH_MAX + 48], shot[PATH_MAX + 32], shot_arg[PATH_MAX + 48];
	char out[PATH_MAX + 32], err_log[PATH_MAX + 32], profile[PATH_MAX + 32];
	if (!find_browser(browser))
		cr_skip_test("chromium is not installed (apt-get install chromium): the headless HTML check is skipped");
	snprintf(url, sizeof url, "file://%s", golden_page(page_path));
	snprintf(shot, sizeof shot, "%s/page.png", dir);
	snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
	snprintf(out, sizeof out, "%s/stdout.txt", dir);
	snprintf(err_log, sizeof err_log, "%s/browser.log", dir);
	snprintf(profile, sizeof profile, "%s/profile", dir);
	char *argv[16];
	int n;
	browser_args(argv, &n, browser, profile);
	argv[n++] = "--hide-scrollbars";
	argv[n++] = WINDOW_SIZE_ARG;
	argv[n++] = shot_arg;
	argv[n++] = url;
	argv[n] = NULL;
	int rc = run_browser(argv, out, err_log);
	cr_assert_eq(rc, 0, "%s exited with %d; its log is in %s", browser, rc, err_log);
	expect_no_console_output(err_log);
	char *png = NULL;
	size_t len = 0;
	kf_err err;
	cr_assert_eq(kf_read_file(shot, FILE_MAX_BYTES, &png, &len, &err), KF_OK, "no screenshot: %s", err.msg);
	const unsigned char *p = (const unsigned char *)png;
	cr_assert_geq(len, (size_t)PNG_IHDR_HEIGHT_OFFSET + 4);
	cr_expect(!memcmp(png, "\x89PNG\r\n\x1a\n", 8), "the screenshot is not a PNG");
	unsigned w = (unsigned)p[PNG_IHDR_WIDTH_OFFSET] << 24 | p[PNG_IHDR_WIDTH_OFFSET + 1] << 16 |
		     p[PNG_IHDR_WIDTH_OFFSET + 2] << 8 | p[PNG_IHDR_WIDTH_OFFSET + 3];
	unsigned h = (unsigned)p[PNG_IHDR_HEIGHT_OFFSET] << 24 | p[PNG_IHDR_HEIGHT_OFFSET + 1] << 16 |
		     p[PNG_IHDR_HEIGHT_OFFSET + 2] << 8 | p[PNG_IHDR_HEIGHT_OFFSET + 3];
	cr_expect(w == WINDOW_W && h == WINDOW_H, "screenshot is %ux%u, not %dx%d", w, h, WINDOW_W, WINDOW_H);
	cr_expect_geq(len, (size_t)PNG_MIN_BYTES, "a %zu-byte screenshot is a blank page", len);
	free(png);
}
