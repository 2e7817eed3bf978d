/* `kforge run --dispatch slurm` against a real one-node Slurm cluster that each test starts for
 * itself (munged, slurmctld and slurmd with a configuration in a private directory, CPU backend):
 * judge workers run as srun job steps, and a worker killed mid-evaluation has its candidate judged
 * by another, nothing lost and nothing judged twice. Skipped, saying why, where Slurm is not
 * installed (apt-get install slurm-wlm munge) or its daemons cannot start here. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "tests/support/cli.h"
#include "tests/support/db.h"
#include "tests/support/llm_server.h"

#define RUN_LIMIT_S 300.0
#define TEST_TIMEOUT_S 600
#define CLUSTER_START_S 30.0
#define POLL_NS 100000000LL
#define WAIT_S 120.0
#define EXCERPT "%.600s"
#define PORT_BASE 20000
#define PORT_SPAN 20000
#define SLOW_CALL_TIMEOUT "8"
#define BUSY_GRACE_S 3 /* after the last reply: both workers are on a slow candidate by then */
#define EXAMPLE_MAX (1u << 20)
#define KEY_BYTES 1024

static char tmpdir[PATH_MAX], db[PATH_MAX], conf[PATH_MAX], conf_env[PATH_MAX + 16], examples[PATH_MAX];
static struct kf_llm_server *srv;
static const char *const daemons[] = { "slurmd", "slurmctld", "munged" };
#define N_DAEMONS 3

static const char slow_kernel_body[] =
	"{\n"
	"\tfor (volatile long i = 0;; i++)\n"
	"\t\tif (i < 0)\n"
	"\t\t\treturn 1;\n"
	"\treturn 0;\n"
	"}\n";

static bool on_path(const char *prog)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Runs a shell command with the cluster's configuration; true when it exits 0. */
static bool sh(const char *cmd)
{
	kf_buf full = KF_BUF_INIT;
	kf_buf_addf(&full, "export SLURM_CONF=%s; %s >/dev/null 2>&1", conf, cmd);
	bool ok = system(full.data) == 0;
	kf_buf_free(&full);
	return ok;
}

static bool write_conf(void)
{
	char host[256] = "";
	kf_err err;
	if (gethostname(host, sizeof host - 1) != 0)
		return false;
	host[strcspn(host, ".")] = '\0';
	int port = PORT_BASE + (int)(getpid() % PORT_SPAN) / 2 * 2;
	kf_buf b = KF_BUF_INIT;
	kf_buf_addf(&b,
		    "ClusterName=kforgetest\nSlurmctldHost=%s\nSlurmctldPort=%d\nSlurmdPort=%d\n"
		    "AuthType=auth/munge\nAuthInfo=socket=%s/munge.socket\nCredType=cred/munge\n"
		    "StateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n"
		    "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\n"
		    "SlurmctldLogFile=%s/slurmctld.log\nSlurmdLogFile=%s/slurmd.log\n"
		    "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
		    "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nMpiDefault=none\n"
		    "SlurmUser=root\nSlurmdUser=root\nReturnToService=2\n"
		    "NodeName=%s CPUs=2 State=UNKNOWN\nPartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP\n",
		    host, port, port + 1, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, host, host);
	bool ok = kf_write_file(conf, b.data, b.len, &err) == KF_OK;
	kf_buf_free(&b);
	return ok;
}

/* Starts munged, slurmctld and slurmd; skips the test when that cannot be done here. */
static void start_cluster(void)
{
	kf_err err;
	char path[PATH_MAX];
	for (int i = 0; i < N_DAEMONS; i++)
		if (!on_path(daemons[i]))
			cr_skip_test("Slurm is not installed (%s missing): apt-get install slurm-wlm munge", daemons[i]);
	if (!on_path("srun") || !on_path("sinfo"))
		cr_skip_test("Slurm's client commands are missing: apt-get install slurm-wlm");
	snprintf(conf, sizeof conf, "%s/slurm.conf", tmpdir);
	snprintf(conf_env, sizeof conf_env, "SLURM_CONF=%s", conf);
	snprintf(path, sizeof path, "%s/state", tmpdir);
	cr_assert_eq(kf_mkdir_p(path, &err), KF_OK, "%s", err.msg);
	snprintf(path, sizeof path, "%s/spool", tmpdir);
	cr_assert_eq(kf_mkdir_p(path, &err), KF_OK, "%s", err.msg);
	cr_assert(write_conf(), "writing slurm.conf");
	char key[KEY_BYTES];
	FILE *r = fopen("/dev/urandom", "rb");
	cr_assert(r && fread(key, 1, sizeof key, r) == sizeof key);
	fclose(r);
	snprintf(path, sizeof path, "%s/munge.key", tmpdir);
	cr_assert_eq(kf_write_file(path, key, sizeof key, &err), KF_OK, "%s", err.msg);
	chmod(path, 0600);
	kf_buf munged = KF_BUF_INIT;
	kf_buf_addf(&munged,
		    "munged --force --key-file=%s/munge.key --socket=%s/munge.socket --pid-file=%s/munged.pid"
		    " --log-file=%s/munged.log --seed-file=%s/munge.seed",
		    tmpdir, tmpdir, tmpdir, tmpdir, tmpdir);
	bool started = sh(munged.data) && sh("slurmctld") && sh("slurmd");
	kf_buf_free(&munged);
	if (!started)
		cr_skip_test("the Slurm daemons did not start here (munged, slurmctld, slurmd; logs in %s)", tmpdir);
	int64_t deadline = kf_now_ns() + (int64_t)(CLUSTER_START_S * 1e9);
	while (kf_now_ns() < deadline) {
		if (sh("test \"$(sinfo -h -o %t)\" = idle"))
			return;
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
	}
	cr_skip_test("the one-node Slurm cluster did not become idle within %.0f s", CLUSTER_START_S);
}

/* Stops the daemons this test started, by the pids they wrote. */
static void stop_cluster(void)
{
	for (int i = 0; i < N_DAEMONS; i++) {
		char path[PATH_MAX], *text = NULL;
		size_t len = 0;
		kf_err err;
		snprintf(path, sizeof path, "%s/%s.pid", tmpdir, daemons[i]);
		if (kf_read_file(path, 64, &text, &len, &err) != KF_OK)
			continue;
		pid_t pid = (pid_t)atol(text);
		free(text);
		/* SIGKILL: the test process may hand its children an ignored SIGTERM. */
		if (pid > 1)
			kill(pid, SIGKILL);
	}
}

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	snprintf(examples, sizeof examples, "%s/examples", tmpdir);
	conf[0] = '\0';
}

static void teardown(void)
{
	kf_llm_server_stop(srv);
	srv = NULL;
	if (conf[0])
		stop_cluster();
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(agent_slurm, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

static const enum kf_scripted_reply mixed[] = { KF_LLM_GOOD, KF_LLM_BROKEN, KF_LLM_LAZY, KF_LLM_NO_CODE };

static void expect_every_candidate_judged_once(void)
{
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates"), 6, "good, broken and lazy of two tasks");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM candidates c WHERE (SELECT COUNT(*) FROM evaluations e"
			  " WHERE e.candidate_id = c.id) <> 1"),
		     0, "a candidate was judged twice, or never");
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'compile_error'"), 2);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'unwritten_output'"), 2);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM runs WHERE status = 'done'"), 1);
	sqlite3_close(h);
}

Test(agent_slurm, judges_a_run_with_workers_started_by_srun)
{
	start_cluster();
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4 };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--model", "scripted",
			       "--samples", "4", "--rounds", "1", "--dispatch", "slurm", "--workers", "2", "--seeds", "1",
			       "--timing-budget", "0.2", "--verify", "off", "--base-url", kf_llm_server_url(srv), "--db", db,
			       "--json", NULL };
	const char *env[] = { "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", conf_env, NULL };
	struct kf_cli_result r;
	cr_assert_eq(kf_cli_run(args, env, RUN_LIMIT_S, &r, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(r.exit_code, 0, "exit %d; stderr: " EXCERPT, r.exit_code, r.err);
	expect_every_candidate_judged_once();
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'ok'"), 2);
	sqlite3_close(h);
	kf_cli_result_free(&r);
}

/* The pid of a `kforge run --serve-worker` process, or 0. */
static pid_t find_worker(void)
{
	DIR *d = opendir("/proc");
	pid_t found = 0;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		char path[PATH_MAX], cmd[4096];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		FILE *f = fopen(path, "rb");
		size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
		if (f)
			fclose(f);
		cmd[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (strstr(cmd, "run --serve-worker") && strstr(cmd, db) && !strstr(cmd, "srun"))
			found = (pid_t)atol(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static void write_slow_examples(void)
{
	kf_err err;
	static const char *const heads[] = {
		"int kf_launch(const float *x, const float *y, float *out, int n)\n",
		"int kf_launch(const float *x, float *out, int rows, int cols)\n",
	};
	static const char *const names[] = { "vector_add", "softmax_rows" };
	cr_assert_eq(kf_mkdir_p(examples, &err), KF_OK, "%s", err.msg);
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX];
		kf_buf b = KF_BUF_INIT;
		kf_buf_addf(&b, "/* Spins until the judge's call timeout. */\n%s%s", heads[i], slow_kernel_body);
		snprintf(path, sizeof path, "%s/%s.c", examples, names[i]);
		cr_assert_eq(kf_write_file(path, b.data, b.len, &err), KF_OK, "%s", err.msg);
		kf_buf_free(&b);
	}
}

Test(agent_slurm, a_worker_killed_mid_evaluation_has_its_candidate_judged_by_another)
{
	start_cluster();
	write_slow_examples();
	struct kf_llm_server_config sc = { .script = mixed, .script_len = 4, .examples_dir = examples };
	kf_err err;
	cr_assert_eq(kf_llm_server_start(&sc, &srv, &err), KF_OK, "%s", err.msg);
	const char *args[] = { "run", "--task", "vector_add", "--task", "softmax_rows", "--model", "scripted",
			       "--samples", "4", "--rounds", "1", "--dispatch", "slurm", "--workers", "2", "--seeds", "1",
			       "--call-timeout", SLOW_CALL_TIMEOUT, "--verify", "off", "--base-url", kf_llm_server_url(srv),
			       "--db", db, "--json", NULL };
	const char *env[] = { "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", conf_env, NULL };
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct kf_cli_result r;
		kf_err e;
		if (kf_cli_run(args, env, RUN_LIMIT_S, &r, &e) != KF_OK)
			_exit(100);
		int code = r.exit_code;
		if (code != 1) /* 1 is expected: no task has a correct kernel */
			fprintf(stderr, "kforge run: exit %d: " EXCERPT "\n", code, r.err);
		_exit(code < 0 ? 101 : code);
	}
	int64_t deadline = kf_now_ns() + (int64_t)(WAIT_S * 1e9);
	while (kf_now_ns() < deadline && kf_llm_server_requests(srv) < 8) {
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
	}
	cr_assert_eq(kf_llm_server_requests(srv), 8, "the run did not send its requests");
	sleep(BUSY_GRACE_S);
	pid_t worker = find_worker();
	cr_assert_gt(worker, 0, "no judge worker process found");
	cr_assert_eq(kill(worker, SIGKILL), 0);
	int status;
	waitpid(pid, &status, 0);
	/* Exit 1: both good kernels spin, so no task has a correct one. */
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "kforge run failed (status %d)", status);
	expect_every_candidate_judged_once();
	sqlite3 *h = kf_test_db_open(db);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'internal_error'"), 0);
	cr_expect_eq(kf_test_db_int(h, "SELECT COUNT(*) FROM evaluations WHERE verdict = 'ok'"), 0, "the spinning kernels passed");
	sqlite3_close(h);
}
