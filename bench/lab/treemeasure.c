/* treemeasure — run one command and account for its whole process tree.
 *
 * Usage: treemeasure [-i INTERVAL_MS] [-t TIMEOUT_S] [-g GRACE_MS]
 *                    [-o STDOUT] [-e STDERR] [-s SERIES.tsv] [-x NAMES]
 *                    -- CMD [ARGS…]
 *
 * What it measures (one line on stdout, key=value):
 *   wall_us       fork to the exit of CMD itself (not of stragglers)
 *   cpu_us        user+sys of CMD and every descendant, from
 *                 getrusage(RUSAGE_CHILDREN) once the whole tree is reaped
 *   peak_rss_kb   the largest sum of VmRSS over the live tree, sampled from
 *                 /proc every INTERVAL_MS, or the largest single process's
 *                 ru_maxrss if that is larger (a process too short-lived for
 *                 the sampler still counts with its own peak)
 *   procs         the most processes alive in the tree at one sample
 *   status        CMD's exit code, 128+signal, or "timeout"
 *   leftover      descendants still alive GRACE_MS after CMD exited (they
 *                 are killed; their CPU until then is counted)
 *   own_rss_kb    with -x only: the largest sum of VmRSS over the live tree
 *                 without the "command" processes: a process whose name
 *                 (/proc/PID/comm) is one of the comma-separated NAMES, and
 *                 every descendant of one, are left out of this sum (an
 *                 agent's shell commands: sh, bash, python3 ...). The
 *                 process names are read at each sample, so a shell that
 *                 exec'd its command is recognised by the command's name.
 *   cmd_procs     with -x only: the most command processes seen at one
 *                 sample (0 means the exclusion never matched anything)
 *
 * Why this shape: the process makes itself a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so a grandchild whose parent exits without
 * waiting is re-parented here and reaped here; the kernel then adds the CPU
 * time of every process of the tree into our RUSAGE_CHILDREN, whoever
 * waited for it. Memory has no such accumulator (ru_maxrss of children is a
 * maximum, not a sum), hence the sampler. Summing VmRSS counts a shared
 * library page once per process that maps it: for a tree of several
 * processes this is an upper bound, the same rule for every agent. This
 * process's own CPU and memory are never in the figures; the fake model
 * server is not our descendant, so it never is either.
 *
 * The descendants are found through /proc/<pid>/task/<tid>/children
 * (CONFIG_PROC_CHILDREN), starting from this process. The exit of CMD is
 * observed through a pidfd, so wall_us does not depend on the interval.
 *
 * -s writes one "ms_since_start rss_kb procs" line per sample, after a
 * "# start_unix <seconds>" header (to line up with the server's log).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TREE 4096

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Appends the children of every thread of `pid` to `out` (up to `cap`). */
static int children_of(pid_t pid, pid_t *out, int n, int cap)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	/* Every thread's list: node and codex may fork from any thread. */
	DIR *d = opendir(path);
	if (!d)
		return n;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < cap) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char cpath[300];
		snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", (int)pid, e->d_name);
		FILE *ls = fopen(cpath, "re");
		if (!ls)
			continue;
		int c;
		while (n < cap && fscanf(ls, "%d", &c) == 1)
			out[n++] = c;
		fclose(ls);
	}
	closedir(d);
	return n;
}

/* All live descendants of this process, breadth first. */
static int tree(pid_t *out, int cap)
{
	int n = children_of(getpid(), out, 0, cap);
	for (int i = 0; i < n; i++)
		n = children_of(out[i], out, n, cap);
	return n;
}

/* -x: ",name,name," (commas around every name), or NULL. */
static char *cmd_names;

static int is_cmd_name(pid_t pid)
{
	char path[64], name[64] = ",";
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(name + 1, (int)sizeof name - 2, f))
		name[1] = 0;
	fclose(f);
	name[strcspn(name, "\n")] = 0;
	strcat(name, ",");
	return name[1] && strstr(cmd_names, name) != NULL;
}

/* Like tree(), and marks in `cmd` the command processes (-x) and their
 * descendants: a child inherits its parent's mark. */
static int tree_marked(pid_t *out, char *cmd, int cap)
{
	int n = children_of(getpid(), out, 0, cap);
	for (int i = 0; i < n; i++)
		cmd[i] = (char)is_cmd_name(out[i]);
	for (int i = 0; i < n; i++) {
		int m = children_of(out[i], out, n, cap);
		for (int j = n; j < m; j++)
			cmd[j] = (char)(cmd[i] || is_cmd_name(out[j]));
		n = m;
	}
	return n;
}

static long rss_kb(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	long size = 0, res = 0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void usage(void)
{
	fprintf(stderr, "usage: treemeasure [-i INTERVAL_MS] [-t TIMEOUT_S] [-g GRACE_MS] "
	                "[-o STDOUT] [-e STDERR] [-s SERIES] [-x NAMES] -- CMD [ARGS...]\n");
	exit(2);
}

static void kill_tree(void)
{
	pid_t pids[MAX_TREE];
	/* Twice: a process may fork between the walk and the kill. */
	for (int round = 0; round < 2; round++) {
		int n = tree(pids, MAX_TREE);
		for (int i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
	}
}

int main(int argc, char **argv)
{
	double interval_ms = 5, timeout_s = 600, grace_ms = 2000;
	const char *out_path = "/dev/null", *err_path = "/dev/null", *series_path = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "+i:t:g:o:e:s:x:")) != -1) {
		switch (opt) {
		case 'i': interval_ms = atof(optarg); break;
		case 't': timeout_s = atof(optarg); break;
		case 'g': grace_ms = atof(optarg); break;
		case 'o': out_path = optarg; break;
		case 'e': err_path = optarg; break;
		case 's': series_path = optarg; break;
		case 'x':
			cmd_names = malloc(strlen(optarg) + 3);
			if (!cmd_names)
				return 1;
			sprintf(cmd_names, ",%s,", optarg);
			break;
		default: usage();
		}
	}
	if (optind >= argc || interval_ms <= 0)
		usage();

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("treemeasure: PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	FILE *series = NULL;
	if (series_path && !(series = fopen(series_path, "we"))) {
		perror(series_path);
		return 1;
	}
	double start_real = now_s(CLOCK_REALTIME);
	double t0 = now_s(CLOCK_MONOTONIC);
	pid_t child = fork();
	if (child < 0) {
		perror("treemeasure: fork");
		return 1;
	}
	if (child == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || err < 0) {
			perror("treemeasure: redirect");
			_exit(127);
		}
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "treemeasure: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (series)
		fprintf(series, "# start_unix %.6f\n", start_real);

	pid_t pids[MAX_TREE];
	char marks[MAX_TREE];
	long peak_tree = 0, peak_own = 0, max_cmd = 0, max_procs = 0, samples = 0;
	double wall = -1;
	int status = 0, timed_out = 0;
	for (;;) {
		/* Sample the live tree. */
		int n = cmd_names ? tree_marked(pids, marks, MAX_TREE) : tree(pids, MAX_TREE);
		long sum = 0, own = 0, ncmd = 0;
		for (int i = 0; i < n; i++) {
			long kb = rss_kb(pids[i]);
			sum += kb;
			if (cmd_names && marks[i])
				ncmd++;
			else
				own += kb;
		}
		if (sum > peak_tree)
			peak_tree = sum;
		if (own > peak_own)
			peak_own = own;
		if (ncmd > max_cmd)
			max_cmd = ncmd;
		if (n > max_procs)
			max_procs = n;
		samples++;
		double t = now_s(CLOCK_MONOTONIC) - t0;
		if (series)
			fprintf(series, "%.1f %ld %d\n", t * 1000.0, sum, n);
		if (wall < 0 && t > timeout_s) {
			timed_out = 1;
			kill_tree();
		}
		/* Wait for CMD's exit (or the interval) and reap whatever exited. */
		if (wall < 0 && pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };
			poll(&p, 1, (int)(interval_ms + 0.5));
		} else {
			struct timespec ts = { 0, (long)(interval_ms * 1e6) };
			nanosleep(&ts, NULL);
		}
		int st;
		pid_t r;
		while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
			if (r == child) {
				wall = now_s(CLOCK_MONOTONIC) - t0;
				status = st;
			}
		}
		if (r < 0 && errno == ECHILD)
			break; /* the whole tree is gone */
		if (wall >= 0 && (now_s(CLOCK_MONOTONIC) - t0 - wall) * 1000.0 > grace_ms)
			break;
	}
	/* Stragglers after the grace period: count them, kill them, reap them. */
	int leftover = tree(pids, MAX_TREE);
	if (leftover > 0) {
		kill_tree();
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	}
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	long cpu_us = (long)ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec +
	              (long)ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
	long peak = peak_tree > ru.ru_maxrss ? peak_tree : ru.ru_maxrss;
	char st_text[32];
	if (timed_out)
		snprintf(st_text, sizeof st_text, "timeout");
	else if (WIFEXITED(status))
		snprintf(st_text, sizeof st_text, "%d", WEXITSTATUS(status));
	else
		snprintf(st_text, sizeof st_text, "%d", 128 + WTERMSIG(status));
	printf("status=%s wall_us=%ld cpu_us=%ld user_us=%ld sys_us=%ld peak_rss_kb=%ld "
	       "max_proc_rss_kb=%ld procs=%ld samples=%ld leftover=%d",
	       st_text, (long)(wall * 1e6), cpu_us,
	       (long)ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
	       (long)ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, peak, ru.ru_maxrss,
	       max_procs, samples, leftover);
	if (cmd_names)
		printf(" own_rss_kb=%ld cmd_procs=%ld", peak_own, max_cmd);
	printf("\n");
	if (series)
		fclose(series);
	return timed_out ? 124 : 0;
}
