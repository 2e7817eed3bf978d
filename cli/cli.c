/* The option parser (getopt_long) and the output helpers shared by the subcommands (see cli.h). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "db/store.h"

/* getopt_long's val for a long option without a short form: past every char value. */
#define LONG_ONLY_BASE 256
/* "-" (non-options come back in order as val 1) and ":" (a missing value is ':', not '?'), then
 * h, then each short option and its ':' */
#define OPTSTRING_MAX (3 + 2 * 64)
#define KF_CLI_MAX_OPTS 128

static const struct kf_cli_opt *find_val(const struct kf_cli_opt *opts, int val)
{
	for (int i = 0; opts[i].name; i++)
		if ((opts[i].short_name && opts[i].short_name == val) || LONG_ONLY_BASE + i == val)
			return &opts[i];
	return NULL;
}

/* Why getopt_long refused arg (its '?'): a value given to a switch, an ambiguous abbreviation, or a
 * name it does not know. */
static int refused(const struct kf_cli_opt *opts, const char *arg, int optopt_val, kf_err *err)
{
	if (strncmp(arg, "--", 2) != 0)
		return kf_errf(err, KF_EINPUT, "unknown option '-%c'", optopt_val ? optopt_val : arg[1]);
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	const struct kf_cli_opt *o = optopt_val ? find_val(opts, optopt_val) : NULL;
	if (o && name[len] == '=')
		return kf_errf(err, KF_EINPUT, "option '--%s' takes no value", o->name);
	kf_buf matches = KF_BUF_INIT;
	int n = 0;
	for (int i = 0; opts[i].name; i++)
		if (!strncmp(opts[i].name, name, len)) {
			kf_buf_addf(&matches, "%s--%s", n ? ", " : "", opts[i].name);
			n++;
		}
	int rc = n > 1 ? kf_errf(err, KF_EINPUT, "option '--%.*s' is ambiguous (%s)", (int)len, name, matches.data)
		       : kf_errf(err, KF_EINPUT, "unknown option '--%.*s'", (int)len, name);
	kf_buf_free(&matches);
	return rc;
}

int kf_cli_parse_opts(int argc, char **argv, const struct kf_cli_opt *opts, const char **pos, int max_pos,
		      int *n_pos, bool *help, kf_err *err)
{
	int n_opts = 0;
	while (opts[n_opts].name)
		n_opts++;
	if (n_opts >= KF_CLI_MAX_OPTS)
		return kf_errf(err, KF_EINTERNAL, "a command has more than %d options", KF_CLI_MAX_OPTS - 1);
	struct option longs[KF_CLI_MAX_OPTS + 1];
	char shorts[OPTSTRING_MAX] = "-:h";
	size_t at = strlen(shorts);
	for (int i = 0; i < n_opts; i++) {
		const struct kf_cli_opt *o = &opts[i];
		int has_arg = o->arg == KF_CLI_SWITCH ? no_argument : required_argument;
		longs[i] = (struct option){ o->name, has_arg, NULL, o->short_name ? o->short_name : LONG_ONLY_BASE + i };
		if (o->short_name && at + 2 < sizeof shorts) {
			shorts[at++] = (char)o->short_name;
			if (has_arg)
				shorts[at++] = ':';
		}
	}
	longs[n_opts] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[n_opts + 1] = (struct option){ NULL, 0, NULL, 0 };
	shorts[at] = '\0';

	/* getopt_long skips argv[0] and may reorder what it is given: it works on a copy that has one. */
	char **av = kf_xcalloc((size_t)argc + 2, sizeof *av);
	av[0] = (char *)"kforge";
	memcpy(av + 1, argv, sizeof *av * (size_t)argc);
	*n_pos = 0;
	*help = false;
	optind = 0; /* glibc: a full reset, so each call parses afresh */
	opterr = 0;
	int rc = KF_OK, c;
	while (rc == KF_OK && (c = getopt_long(argc + 1, av, shorts, longs, NULL)) != -1) {
		const struct kf_cli_opt *o = find_val(opts, c);
		if (c == 1) {
			if (*n_pos >= max_pos)
				rc = kf_errf(err, KF_EINPUT, "unexpected argument '%s'", optarg);
			else
				pos[(*n_pos)++] = optarg;
		} else if (c == 'h') {
			*help = true;
		} else if (c == ':') {
			const struct kf_cli_opt *m = find_val(opts, optopt);
			rc = m ? kf_errf(err, KF_EINPUT, "option '--%s' needs a value", m->name)
			       : kf_errf(err, KF_EINPUT, "option '%s' needs a value", av[optind - 1]);
		} else if (c == '?' || !o) {
			rc = refused(opts, av[optind - 1], optopt, err);
		} else if (o->arg == KF_CLI_SWITCH) {
			*o->flag = true;
		} else if (o->arg == KF_CLI_VALUE) {
			*o->value = optarg;
		} else {
			rc = o->add(o->ctx, optarg, err);
		}
	}
	/* After "--", getopt_long stops: the rest are positional. */
	for (int i = optind; rc == KF_OK && i < argc + 1; i++) {
		if (*n_pos >= max_pos)
			rc = kf_errf(err, KF_EINPUT, "unexpected argument '%s'", av[i]);
		else
			pos[(*n_pos)++] = av[i];
	}
	free(av);
	return rc;
}

int kf_cli_parse(int argc, char **argv, const struct kf_opt *opts, const char **pos, int max_pos, int *n_pos,
		 bool *help, kf_err *err)
{
	int n = 0;
	while (opts[n].name)
		n++;
	struct kf_cli_opt *all = kf_xcalloc((size_t)n + 1, sizeof *all);
	for (int i = 0; i < n; i++)
		all[i] = (struct kf_cli_opt){ .name = opts[i].name,
					      .arg = opts[i].takes_value ? KF_CLI_VALUE : KF_CLI_SWITCH,
					      .value = opts[i].value,
					      .flag = opts[i].flag };
	int rc = kf_cli_parse_opts(argc, argv, all, pos, max_pos, n_pos, help, err);
	free(all);
	return rc;
}

const char *kf_cli_db_path(const char *flag)
{
	if (flag && *flag)
		return flag;
	const char *env = getenv("KFORGE_DB");
	return env && *env ? env : "kforge.db";
}

int kf_cli_open_db(const char *path, bool must_exist, struct kf_store **out, kf_err *err)
{
	*out = NULL;
	if (must_exist && access(path, F_OK) != 0)
		return kf_errno(err, KF_EINPUT, "no database at %s (kforge submit or kforge run creates one; --db or "
				"$KFORGE_DB names another)", path);
	return kf_store_open(path, out, err);
}

int kf_cli_fail(const kf_err *err)
{
	/* One line: messages never carry newlines into the terminal. */
	fputs("kforge: ", stderr);
	for (const char *p = err->msg; *p; p++)
		fputc(*p == '\n' ? ' ' : *p, stderr);
	fputc('\n', stderr);
	switch (err->code) {
	case KF_EREJECT: return KF_EXIT_REJECTED;
	case KF_EINPUT: return KF_EXIT_USAGE;
	default: return KF_EXIT_INTERNAL;
	}
}

void kf_cli_print_json(const cJSON *j)
{
	char *s = cJSON_Print(j);
	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	fflush(stdout);
}
