/* The HTML leaderboard in a real browser: headless Chromium (Debian's `chromium`) opens the golden page
 * (tests/golden/leaderboard/leaderboard.html, which test_leaderboard.c proves is what kforge writes),
 * logs no console message, lays out every chart element with a non-empty box, sorts a table on a
 * header click, and takes a screenshot. A wide page (38 tasks, two sources with long names) is laid
 * out at 1400 and 800 px: the page never scrolls sideways (nor, at 1400 px, the summary table), no
 * chart leaves its column, no chart label is cut, every chart has a title. The Markdown and HTML of that page print token counts whole. The browser
 * checks are skipped, with a message, where chromium is not installed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "eval/report/report.h"
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

/* ---- a wide page ---- */

#define WIDE_TASKS 38
#define WIDE_SOURCES 2
#define WIDE_TOKENS 12240.0
#define LAYOUT_WINDOW_H 2000
#define TABLE_FITS_W 1400 /* the narrowest window whose summary table must fit without scrolling */
static const int layout_widths[] = { 1400, 800 };

/* Names as long as the suites' longest, so the labels are as hard to fit as they get. */
static const char *const task_stems[] = { "causal_attention_scores", "layernorm_residual_bf16", "selective_scan",
					  "softmax_rows", "matmul_bf16", "long_conv", "vector_add" };
static const char *const wide_sources[WIDE_SOURCES] = {
	"claude-sonnet-4-20250514 (8 samples x 4 rounds, keep 2)",
	"Qwen/Qwen2.5-Coder-32B-Instruct (16 samples x 2 rounds, keep 4)",
};

struct wide {
	struct kf_leaderboard lb;
	struct kf_lb_group g;
	char names[WIDE_TASKS][64];
	struct kf_lb_cell cells[WIDE_TASKS];
	struct kf_lb_eval evals[WIDE_SOURCES * WIDE_TASKS];
	struct kf_lb_row rows[WIDE_SOURCES * WIDE_TASKS];
	struct kf_lb_summary sums[WIDE_SOURCES];
};

/* A leaderboard built by hand: every task solved by both sources, SOL fractions spread over 0..1. */
static void wide_leaderboard(struct wide *w)
{
	memset(w, 0, sizeof *w);
	w->g.backend = "cpu";
	w->g.device = "Test CPU (8 cores)";
	for (int c = 0; c < WIDE_TASKS; c++) {
		snprintf(w->names[c], sizeof w->names[c], "%s_%02d", task_stems[c % 7], c);
		w->cells[c] = (struct kf_lb_cell){ w->names[c], "cpu", w->g.device };
	}
	for (int s = 0; s < WIDE_SOURCES; s++) {
		for (int c = 0; c < WIDE_TASKS; c++) {
			int i = s * WIDE_TASKS + c;
			struct kf_lb_eval *e = &w->evals[i];
			e->submission_id = i + 1;
			e->evaluation_id = i + 1;
			e->source = (char *)wide_sources[s];
			e->task = w->names[c];
			e->verdict = "ok";
			e->time_ms = 1.0 + c;
			e->sol_fraction = (double)((c * 7 + s * 3) % 20 + 1) / 20.0;
			w->rows[i] = (struct kf_lb_row){ .source = e->source, .task = e->task, .backend = "cpu",
							 .device = w->g.device, .selected = e, .verdict = "ok",
							 .time_ms = e->time_ms, .ref_time_ms = 2.0, .vendor_time_ms = NAN,
							 .speedup = 2.0 / e->time_ms, .vendor_speedup = NAN,
							 .sol_fraction = e->sol_fraction, .sol_score = 0.5, .n_candidates = 4,
							 .n_correct = 2 };
		}
		struct kf_lb_summary *sum = &w->sums[s];
		sum->source = wide_sources[s];
		sum->n_tasks = sum->n_correct = WIDE_TASKS;
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			sum->fast_p[p] = 1.0 / (p + 1);
		sum->geomean_speedup = 0.31234;
		sum->mean_sol_fraction = 0.5;
		sum->mean_sol_score = 0.5;
		sum->pass_at_1 = sum->pass_at_k = 0.5;
		sum->k = 4;
		sum->tokens = WIDE_TOKENS * (s + 1);
		sum->cost_usd = 0.123456;
	}
	w->g.cells = w->cells;
	w->g.n_cells = WIDE_TASKS;
	w->g.summaries = w->sums;
	w->g.n_summaries = WIDE_SOURCES;
	w->g.rows = w->rows;
	w->g.n_rows = WIDE_SOURCES * WIDE_TASKS;
	w->lb.evals = w->evals;
	w->lb.n_evals = WIDE_SOURCES * WIDE_TASKS;
	w->lb.groups = &w->g;
	w->lb.n_groups = 1;
}

static char *render_wide(kf_report_writer write)
{
	static struct wide w;
	struct kf_report_opts o = { 0 };
	kf_buf out = KF_BUF_INIT;
	wide_leaderboard(&w);
	write(&w.lb, &o, &out);
	return kf_buf_detach(&out);
}

Test(report_html, token_counts_print_whole_in_markdown_and_html)
{
	char *md = render_wide(kf_report_md), *html = render_wide(kf_report_html);
	cr_expect(strstr(md, " 12240 |") && strstr(md, " 24480 |"), "Markdown tokens: %.2000s", md);
	cr_expect(strstr(html, ">12240</td>") && strstr(html, ">24480</td>"), "HTML tokens are not whole numbers");
	cr_expect_null(strstr(md, "e+0"), "a number in exponent notation: %.2000s", strstr(md, "e+0"));
	free(md);
	free(html);
}

/* Measures the laid-out page and leaves the findings in <pre id="kf-probe">: the window's width, the
 * page's overflow, summary tables that scroll inside their box, charts that leave their row of
 * charts, chart texts outside their chart, and charts without a visible title and an SVG <title>. */
static const char layout_probe[] =
	"<script>\n"
	"(function () {\n"
	"  var slack = 0.5, de = document.documentElement;\n"
	"  function outside(r, box) { return r.left < box.left - slack || r.right > box.right + slack ||\n"
	"    r.top < box.top - slack || r.bottom > box.bottom + slack; }\n"
	"  var scrolls = 0, overflow = 0, cut = 0, untitled = 0, first_cut = '';\n"
	"  document.querySelectorAll('table.summary').forEach(function (t) {\n"
	"    var box = t.parentNode; if (box.scrollWidth > box.clientWidth + 1 || t.getBoundingClientRect().right >\n"
	"      box.getBoundingClientRect().right + slack) scrolls++; });\n"
	"  document.querySelectorAll('svg.kf-chart').forEach(function (svg) {\n"
	"    var row = svg.closest('.charts').getBoundingClientRect(), box = svg.getBoundingClientRect();\n"
	"    if (box.left < row.left - slack || box.right > row.right + slack) overflow++;\n"
	"    svg.querySelectorAll('text').forEach(function (t) {\n"
	"      if (outside(t.getBoundingClientRect(), box)) { cut++; first_cut = first_cut || t.textContent; } });\n"
	"    var fig = svg.closest('figure'), h = fig && fig.querySelector('.kf-chart-title');\n"
	"    var title = svg.firstElementChild;\n"
	"    if (!h || !h.textContent.trim() || h.getBoundingClientRect().height <= 0 || !title ||\n"
	"      title.tagName.toLowerCase() !== 'title' || !title.textContent.trim()) untitled++; });\n"
	"  var pre = document.createElement('pre'); pre.id = 'kf-probe';\n"
	"  pre.textContent = ' width=' + window.innerWidth + ' page_overflow=' + (de.scrollWidth > window.innerWidth ? 1 : 0) +\n"
	"    ' table_scrolls=' + scrolls + ' chart_overflow=' + overflow + ' cut_labels=' + cut + ' untitled=' + untitled +\n"
	"    ' charts=' + document.querySelectorAll('svg.kf-chart').length + ' first_cut=' + first_cut.replace(/\\s/g, '_');\n"
	"  document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

static void lay_out(const char *browser, const char *page_path, int width, char **dom)
{
	char url[PATH_MAX + 48], out[PATH_MAX + 32], err_log[PATH_MAX + 32], profile[PATH_MAX + 32], size[64];
	snprintf(url, sizeof url, "file://%s", page_path);
	snprintf(out, sizeof out, "%s/dom-%d.html", dir, width);
	snprintf(err_log, sizeof err_log, "%s/browser-%d.log", dir, width);
	snprintf(profile, sizeof profile, "%s/profile", dir);
	snprintf(size, sizeof size, "--window-size=%d,%d", width, LAYOUT_WINDOW_H);
	char *argv[16];
	int n;
	browser_args(argv, &n, browser, profile);
	argv[n++] = "--hide-scrollbars";
	argv[n++] = size;
	argv[n++] = "--dump-dom";
	argv[n++] = url;
	argv[n] = NULL;
	int rc = run_browser(argv, out, err_log);
	cr_assert_eq(rc, 0, "%s exited with %d; its log is in %s", browser, rc, err_log);
	expect_no_console_output(err_log);
	*dom = slurp(out);
}

Test(report_html, a_wide_page_fits_1400_and_800_pixel_windows_with_every_chart_titled, .timeout = 4 * BROWSER_TIMEOUT_S)
{
	char browser[PATH_MAX], page_path[PATH_MAX + 32];
	if (!find_browser(browser))
		cr_skip_test("chromium is not installed (apt-get install chromium): the headless HTML check is skipped");
	char *page = render_wide(kf_report_html);
	const char *body_end = strstr(page, "</body>");
	cr_assert_not_null(body_end);
	kf_buf probed = KF_BUF_INIT;
	kf_err err;
	kf_buf_add(&probed, page, (size_t)(body_end - page));
	kf_buf_adds(&probed, layout_probe);
	kf_buf_adds(&probed, body_end);
	snprintf(page_path, sizeof page_path, "%s/wide.html", dir);
	cr_assert_eq(kf_write_file(page_path, probed.data, probed.len, &err), KF_OK, "%s", err.msg);
	kf_buf_free(&probed);
	free(page);
	for (size_t i = 0; i < sizeof layout_widths / sizeof layout_widths[0]; i++) {
		int w = layout_widths[i];
		char *dom;
		lay_out(browser, page_path, w, &dom);
		cr_assert_eq(probe_value(dom, "width"), w, "the window is not %d px wide", w);
		cr_expect_eq(probe_value(dom, "charts"), 2, "at %d px", w);
		cr_expect_eq(probe_value(dom, "page_overflow"), 0, "at %d px the page scrolls sideways", w);
		/* Below that the table scrolls inside its own box: 16 columns of numbers need the room. */
		if (w >= TABLE_FITS_W)
			cr_expect_eq(probe_value(dom, "table_scrolls"), 0, "at %d px the summary table scrolls sideways", w);
		cr_expect_eq(probe_value(dom, "chart_overflow"), 0, "at %d px a chart leaves its column", w);
		cr_expect_eq(probe_value(dom, "cut_labels"), 0, "at %d px chart text is cut off (%.80s)", w,
			     strstr(strstr(dom, "<pre id=\"kf-probe\">"), "first_cut="));
		cr_expect_eq(probe_value(dom, "untitled"), 0, "at %d px a chart has no title", w);
		free(dom);
	}
}
