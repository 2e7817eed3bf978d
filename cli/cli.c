/* Option parsing and output helpers for the subcommands (see cli.h). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int kf_cli_parse(int argc, char **argv, const struct kf_opt *opts, const char **pos, int max_pos, int *n_pos,
		 bool *help, kf_err *err)
{
	*n_pos = 0;
	*help = false;
	bool only_pos = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (only_pos || a[0] != '-' || !strcmp(a, "-")) {
			if (*n_pos >= max_pos)
				return kf_errf(err, KF_EINPUT, "unexpected argument '%s'", a);
			pos[(*n_pos)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*help = true;
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			return kf_errf(err, KF_EINPUT, "unknown option '%s' (options are spelled --name)", a);
		const char *name = a + 2;
		const char *eq = strchr(name, '=');
		size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
		const struct kf_opt *o = NULL;
		for (const struct kf_opt *p = opts; p->name; p++)
			if (strlen(p->name) == nlen && !strncmp(p->name, name, nlen))
				o = p;
		if (!o)
			return kf_errf(err, KF_EINPUT, "unknown option '--%.*s'", (int)nlen, name);
		if (!o->takes_value) {
			if (eq)
				return kf_errf(err, KF_EINPUT, "option '--%s' takes no value", o->name);
			*o->flag = true;
			continue;
		}
		if (eq) {
			*o->value = eq + 1;
		} else {
			if (i + 1 >= argc)
				return kf_errf(err, KF_EINPUT, "option '--%s' needs a value", o->name);
			*o->value = argv[++i];
		}
	}
	return KF_OK;
}

const char *kf_cli_db_path(const char *flag)
{
	if (flag && *flag)
		return flag;
	const char *env = getenv("KFORGE_DB");
	return env && *env ? env : "kforge.db";
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
