/* Specification of the jail's uid handling: each jail gets a uid of its own, and dropping to
 * it leaves no trace of root (no groups, every id changed). */
#include <criterion/criterion.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/jail.h"

#define DRAWS 4096

Test(jail, fresh_uids_lie_in_the_documented_range_and_do_not_repeat)
{
	static uid_t seen[DRAWS];
	for (int i = 0; i < DRAWS; i++) {
		seen[i] = kf_jail_fresh_uid();
		cr_assert_geq(seen[i], KF_JAIL_UID_MIN);
		cr_assert_lt(seen[i], KF_JAIL_UID_END);
	}
	/* 4096 draws from 2^30 values: a repeat has probability under 1%. */
	int repeats = 0;
	for (int i = 0; i < DRAWS; i++)
		for (int j = 0; j < i; j++)
			repeats += seen[i] == seen[j];
	cr_assert_leq(repeats, 1);
}

/* What the child reports through its exit status: 0 when every id and the group list moved. */
static int drop_and_check(uid_t uid)
{
	if (kf_jail_drop_root_to(uid) != 0)
		return 1;
	uid_t r, e, s;
	gid_t rg, eg, sg;
	if (getresuid(&r, &e, &s) != 0 || getresgid(&rg, &eg, &sg) != 0)
		return 2;
	if (r != uid || e != uid || s != uid || rg != (gid_t)uid || eg != (gid_t)uid || sg != (gid_t)uid)
		return 3;
	if (getgroups(0, NULL) != 0)
		return 4;
	/* No way back: root's ids are gone from all three slots. */
	return setresuid(0, 0, 0) == 0 ? 5 : 0;
}

Test(jail, dropping_root_to_a_fresh_uid_changes_every_id_and_clears_groups)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (the uid change is root's to make)");
	uid_t uid = kf_jail_fresh_uid();
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(drop_and_check(uid));
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0, "child check %d failed", WEXITSTATUS(st));
}
