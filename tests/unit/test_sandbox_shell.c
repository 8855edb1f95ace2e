/* test_sandbox_shell.c — the shell analyzer: a table of clean and flagged
 * lines (quoted, nested, wrapped), the commands it finds, and robustness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/err.h"
#include "base/fs.h"
#include "sandbox/shell.h"

#define D ZSH_DESTRUCTIVE
#define N ZSH_NETWORK
#define I ZSH_INTERACTIVE
#define C ZSH_TOO_COMPLEX

typedef struct row {
  const char *src;
  unsigned flags;
  const char *cmds; /* the commands found, "|"-separated argv[0]s; NULL = not checked */
} row;

static const row table[] = {
    /* clean */
    {"ls -la", 0, "ls"},
    {"git status", 0, "git"},
    {"git commit -m \"rm -rf /\"", 0, "git"},
    {"git commit -am 'fix: curl wget'", 0, "git"},
    {"echo 'rm -rf /'", 0, "echo"},
    {"echo \"sudo rm -rf ~\"", 0, "echo"},
    {"grep -r 'curl http://x' src", 0, "grep"},
    {"make -j2 && ./build/tests", 0, "make|./build/tests"},
    {"cc -o m m.c; ./m", 0, "cc|./m"},
    {"cat file | sort | uniq -c", 0, "cat|sort|uniq"},
    {"FOO=bar make", 0, "make"},
    {"A=1 B='x y' env", 0, "env"},
    {"rm file.txt", 0, "rm"},
    {"rm -- -rf", 0, "rm"},
    {"npm test", 0, "npm"},
    {"npm install --offline", 0, "npm"},
    {"pip install --no-index ./dist/pkg.whl", 0, "pip"},
    {"python3 -m pytest -q", 0, "python3"},
    {"python3 script.py", 0, "python3"},
    {"node -e 'console.log(1)'", 0, "node"},
    {"cat <<'EOF' > f.txt\nrm -rf /\ncurl x\nEOF\necho done", 0, "cat|echo"},
    {"cat <<EOF\nhello\nEOF", 0, "cat"},
    {"ls 2>/dev/null >out.txt", 0, "ls"},
    {"ls > rm", 0, "ls"},
    {"cmd 2>&1 | tee log", 0, "cmd|tee"},
    {"echo $((1 + 2))", 0, "echo"},
    {"echo ${HOME:-/tmp}", 0, "echo"},
    {"if [ -f x ]; then echo y; fi", 0, "[|echo"},
    {"for f in *.c; do cc -c $f; done", 0, "cc"},
    {"while true; do sleep 1; done", 0, "true|sleep"},
    {"(cd sub && make)", 0, "cd|make"},
    {"{ echo a; echo b; } > out", 0, "echo|echo"},
    {"command -v curl", 0, NULL},
    {"git log --oneline | head -5", 0, "git|head"},
    {"bash -c 'echo hi'", 0, "echo|bash"},
    {"time make", 0, "make"},
    {"git -C sub status", 0, "git"},
    {"# rm -rf /\nls", 0, "ls"},
    {"echo a\\;rm -rf /", 0, "echo"},
    {"", 0, ""},
    {"cargo build --release", 0, "cargo"},
    {"go test ./...", 0, "go"},
    {"git commit --no-edit --amend", 0, "git"},
    {"python3 -c 'import os'", 0, "python3"},
    /* destructive */
    {"rm -rf build", D, "rm"},
    {"rm -r dir", D, "rm"},
    {"rm -f x", D, "rm"},
    {"rm --recursive d", D, "rm"},
    {"sudo rm -rf /", D, "rm"},
    {"sudo -u root rm -rf /", D, "rm"},
    {"env FOO=1 rm -rf x", D, "rm"},
    {"nice -n 10 rm -rf x", D, "rm"},
    {"timeout 5 rm -rf x", D, "rm"},
    {"timeout -s KILL 5 dd if=/dev/zero of=x", D, "dd"},
    {"bash -c 'rm -rf ~'", D, NULL},
    {"sh -c \"sudo rm -rf /\"", D, NULL},
    {"bash -lc 'make && rm -rf out'", D, NULL},
    {"echo $(rm -rf /)", D, NULL},
    {"echo \"$(rm -rf x)\"", D, NULL},
    {"echo `rm -rf x`", D, NULL},
    {"ls && rm -rf x || true", D, NULL},
    {"dd if=/dev/zero of=/dev/sda", D, "dd"},
    {"mkfs.ext4 /dev/sdb1", D, "mkfs.ext4"},
    {"shred -u secret", D, "shred"},
    {"git clean -fdx", D, "git"},
    {"git reset --hard HEAD~1", D, "git"},
    {"find . -name '*.o' -delete", D, "find"},
    {"find . | xargs rm -rf", D, NULL},
    {"/bin/rm -rf x", D, "/bin/rm"},
    {"cat x | sudo nice -n 5 env A=1 rm -fr y", D, NULL},
    {"diff <(rm -rf x) y", D, NULL},
    /* network */
    {"curl https://example.com", N, "curl"},
    {"wget -q http://x/y", N, "wget"},
    {"ssh host uptime", N, "ssh"},
    {"git clone https://github.com/x/y", N, "git"},
    {"git fetch origin", N, "git"},
    {"git pull --rebase", N, "git"},
    {"git push origin main", N, "git"},
    {"npm install", N, "npm"},
    {"npm i lodash", N, "npm"},
    {"yarn", N, "yarn"},
    {"pnpm add react", N, "pnpm"},
    {"pip install requests", N, "pip"},
    {"python3 -m pip install requests", N, NULL},
    {"apt-get install -y jq", N, "apt-get"},
    {"sudo apt update", N, "apt"},
    {"cargo install ripgrep", N, "cargo"},
    {"go get example.com/x", N, "go"},
    {"go mod download", N, "go"},
    {"npx create-react-app x", N, "npx"},
    {"docker pull alpine", N, "docker"},
    {"make && curl -X POST http://x", N, NULL},
    {"FOO=$(curl -s http://x) make", N, NULL},
    {"echo hi | nc host 80", N, NULL},
    /* interactive */
    {"vim file.c", I, "vim"},
    {"less log.txt", I, "less"},
    {"git commit", I, "git"},
    {"git rebase -i HEAD~3", I, "git"},
    {"python3", I, "python3"},
    {"node", I, "node"},
    {"bash", I, "bash"},
    {"top", I, "top"},
    {"man ls", I, "man"},
    /* too complex */
    {"eval \"$CMD\"", C, NULL},
    {"echo 'unterminated", C, NULL},
    {"echo \"unterminated", C, NULL},
    {"echo $(unterminated", C, NULL},
    {"case $x in a) rm -rf x;; esac", C, NULL},
    {"cat <<EOF\nno end", C, NULL},
    {"cat <<EOF\n$(rm -rf x)\nEOF", C, NULL},
    {"f() { rm -rf x; }; f", C, NULL},
    {"env -S 'rm -rf x'", C, NULL},
    {"echo `unterminated", C, NULL},
    /* what runs is only known when it runs: the command name is an expansion */
    {"$(echo rm) -rf x", C, NULL},
    {"${RM:-rm} -rf x", C, NULL},
    {"x=rm; $x -rf y", C, NULL},
    {"\"$(which rm)\" -rf x", C, NULL},
    {"sudo \"$X\" -rf /", C, NULL},
    {"bash -c \"$CMD\"", C, NULL},
    {"make CC=$CC && echo $HOME", 0, "make|echo"},
    /* a shell fed its script by a pipe or a here-document */
    {"echo 'rm -rf /' | sh", C, NULL},
    {"printf 'rm -rf x' | bash -s", C, NULL},
    {"bash <<'EOF'\nrm -rf /\nEOF", C, NULL},
    {"sh < script.sh", 0, "sh"},
    /* a script for an interpreter from a here-document or file is not a REPL */
    {"python3 - <<'EOF'\nimport os\nprint(1)\nEOF", 0, "python3"},
    {"python3 < script.py", 0, "python3"},
    {"cat <<-EOF\n\techo hi\n\tEOF\nrm -rf y", D, "cat|rm"},
    /* commands run by find -exec, busybox applets, fish -c */
    {"find . -name '*.o' -exec rm -rf {} \\;", D, "find|rm"},
    {"find . -execdir curl -O x {} +", N, "find|curl"},
    {"find . -name '*.c' -exec grep -l main {} +", 0, "find|grep"},
    {"busybox rm -rf x", D, "rm"},
    {"fish -c 'rm -rf x'", D, NULL},
    /* wrappers' options in every form getopt reads (issue 14, hole 5) */
    {"sudo --user X rm -rf x", D, "rm"},
    {"sudo --user=X rm -rf x", D, "rm"},
    {"sudo -uX rm -rf x", D, "rm"},
    {"sudo -E -H -u root -- rm -rf x", D, "rm"},
    {"sudo VAR=1 rm -rf x", D, "rm"},
    {"nice --adjustment 5 rm -rf x", D, "rm"},
    {"nice --adjustment=5 rm -rf x", D, "rm"},
    {"nice --adj 5 rm -rf x", D, "rm"},
    {"nice -5 rm -rf x", D, "rm"},
    {"nice -n5 rm -rf x", D, "rm"},
    {"stdbuf --output L rm -rf src", D, "rm"},
    {"stdbuf --output=L rm -rf src", D, "rm"},
    {"stdbuf --out L rm -rf src", D, "rm"},
    {"stdbuf -oL rm -rf src", D, "rm"},
    {"stdbuf -o L -e 0 rm -rf src", D, "rm"},
    {"stdbuf --output L curl http://x", N, "curl"},
    {"xargs --max-args 1 rm -rf x", D, "rm"},
    {"xargs -n1 -P 4 rm -rf x", D, "rm"},
    {"timeout --signal KILL 5 rm -rf x", D, "rm"},
    {"timeout --signal=KILL --kill-after 1 5 rm -rf x", D, "rm"},
    {"timeout -k 1 5 rm -rf x", D, "rm"},
    {"timeout 5s rm -rf x", D, "rm"},
    {"timeout --foreground 5 vim f", I, "vim"},
    {"env --unset V rm -rf x", D, "rm"},
    {"env -u V -C /tmp A=1 rm -rf x", D, "rm"},
    {"env - rm -rf x", D, "rm"},
    {"ionice --class 3 rm -rf x", D, "rm"},
    {"ionice -c3 -n 7 curl http://x", N, "curl"},
    {"chrt --idle 0 rm -rf x", D, "rm"},
    {"chrt -i 0 curl http://x", N, "curl"},
    {"nice --adjustment 5 vim f", I, "vim"},
    {"setsid -f rm -rf x", D, "rm"},
    {"taskset -c 0 rm -rf x", D, "rm"},
    {"nohup rm -rf x &", D, "rm"},
    {"time -p rm -rf x", D, "rm"},
    {"time -f %e -o t.txt rm -rf x", D, "rm"},
    {"command -p rm -rf x", D, "rm"},
    {"exec -a name rm -rf x", D, "rm"},
    {"flock /tmp/l rm -rf x", D, "rm"},
    {"flock --timeout=5 /tmp/l rm -rf x", D, "rm"},
    {"flock -w 5 /tmp/l -c 'rm -rf x'", D, NULL},
    {"runuser -u nobody -- rm -rf x", D, "rm"},
    {"su -c 'rm -rf x' nobody", D, NULL},
    {"su nobody -c 'rm -rf x'", D, NULL},
    {"sg users 'rm -rf x'", D, NULL},
    {"sg users -c 'curl http://x'", N, NULL},
    {"setpriv --reuid 65534 --clear-groups rm -rf x", D, "rm"},
    {"setpriv --reuid=65534 curl http://x", N, "curl"},
    {"unshare -rm rm -rf x", D, "rm"},
    {"unshare --mount --map-root-user --propagation private rm -rf x", D, "rm"},
    {"nsenter -t 1 -m -u rm -rf x", D, "rm"},
    {"chroot / rm -rf x", D, "rm"},
    {"prlimit --nofile=10 rm -rf x", D, "rm"},
    {"strace -f -o /dev/null rm -rf x", D, "rm"},
    {"fakeroot -- rm -rf x", D, "rm"},
    {"busybox timeout 5 rm -rf x", D, "rm"},
    {"script -qc 'rm -rf x' /dev/null", D, NULL},
    {"watch -n 1 'rm -rf x'", D | I, NULL},
    {"watch -x curl http://x", N | I, NULL},
    {"sudo -E env --unset=A nice -n 1 stdbuf -oL timeout --signal=KILL 5 rm -rf x", D, "rm"},
    {"builtin command rm -rf x", D, "rm"},
    /* a wrapper's option the table does not know: never clean */
    {"stdbuf --bogus L rm -rf x", C, NULL},
    {"sudo --frobnicate rm -rf x", C, NULL},
    {"nice -q rm -rf x", C, NULL},
    {"env --i rm -rf x", C, NULL}, /* ambiguous abbreviation */
    {"timeout --foreground=1 5 rm -rf x", C, NULL},
    {"env -vS'rm -rf x'", C, NULL},
    {"env --split-string='rm -rf x'", C, NULL},
    {"sudo -s rm -rf x", C, NULL},
    {"su nobody rm", C, NULL},
    {"parallel rm -rf ::: a b", C, NULL},
    {"systemd-run --user rm -rf x", C, NULL},
    {"builtin eval rm", C, NULL},
    /* input that becomes a command or its arguments under xargs */
    {"echo 'rm -rf x' | xargs sh -c", C, NULL},
    {"ls | xargs -I{} sh -c 'echo {}'", C, NULL},
    {"ls | xargs -I{} {} -rf x", C, NULL},
    {"echo clean -fdx | xargs git", C, NULL},
    {"echo rm -rf x | xargs env", C, NULL},
    {"echo rm -rf x | xargs timeout 5", C, NULL},
    {"find . -name '*.o' | xargs rm", D, NULL},
    {"find . -name '*.c' | xargs grep -l main", 0, "find|grep"},
    {"find . -name '*.c' | xargs -I{} cp {} out/", 0, "find|cp"},
    {"ls | xargs -I{} git add src/x.c", 0, "ls|git"},
    {"grep -rl foo src | xargs sed -i 's/foo/bar/g'", 0, "grep|sed"},
    {"echo x | xargs sed", C, NULL},
    /* command names hidden by quoting, paths, expansion or renaming */
    {"\\rm -rf x", D, "rm"},
    {"r\"\"m -rf x", D, "rm"},
    {"'rm' -rf x", D, "rm"},
    {"r\\\nm -rf x", D, "rm"},
    {"/usr/bin/env rm -rf x", D, "rm"},
    {"\"/bin/rm\" -rf x", D, "/bin/rm"},
    {">out rm -rf x", D, "rm"},
    {"$'rm' -rf x", C, NULL},
    {"/bin/r? -rf x", C, NULL},
    {"/bin/[r]m -rf x", C, NULL},
    {"{rm,-rf,x}", C, NULL},
    {"function f { rm -rf x; }; f", C, NULL},
    {"alias ls='rm -rf x'", C, NULL},
    {"hash -p /bin/rm ls; ls -rf x", C, NULL},
    {"coproc rm -rf x", C, NULL},
    {"bash <<< 'rm -rf x'", C, NULL},
    {"python3 <<< 'print(1)'", 0, "python3"},
    /* variables that name a program the command runs, or code it loads */
    {"PAGER='rm -rf x' git log", D, NULL},
    {"GIT_SSH_COMMAND='curl http://x' git status", N, NULL},
    {"env GIT_EDITOR='rm -rf x' git status", D, NULL},
    {"LD_PRELOAD=./x.so ls", C, NULL},
    {"env BASH_ENV=./x.sh bash -c true", C, NULL},
    {"PAGER=cat git log", 0, "cat|git"},
    {"trap 'rm -rf x' EXIT", D, NULL},
    {"trap - EXIT", 0, "trap"},
    /* wrappers that start a shell or an editor */
    {"sudo -i", I, NULL},
    {"unshare -r", I, NULL},
    {"su", I, NULL},
    {"sudo -e /etc/hosts", I, NULL},
    {"sudoedit /etc/hosts", I, NULL},
    {"watch ls", I, NULL},
    /* clean */
    {"nice -n 10 make", 0, "make"},
    {"timeout 60 make test", 0, "make"},
    {"stdbuf -oL make", 0, "make"},
    {"env -i PATH=/usr/bin make", 0, "make"},
    {"[ -f x ] && echo y", 0, "[|echo"},
    {"flock -n /tmp/l make", 0, "make"},
    /* found by scripts/mutate.py: quotes and backquotes inside $( … ), the
     * words watch joins, a redirection to an fd before the command, uv pip */
    {"echo $(echo \")\"; rm -rf x)", D, NULL},
    {"echo $(echo `echo )`; rm -rf x)", D, NULL},
    {"watch -n 1 rm -rf x", D | I, NULL},
    {">&2 rm -rf x", D, "rm"},
    {"2>&1 rm -rf x", D, "rm"},
    {"uv pip install requests", N, "uv"},
    /* found by fuzz_shell_analyzer: a NAME=value word after a reserved word
     * or bash's `time` keyword is an assignment, and the command follows */
    {"if true; then A=1 rm -rf x; fi", D, NULL},
    {"! A=1 rm -rf x", D, "rm"},
    {"{ A=1 rm -rf x; }", D, "rm"},
    {"while true; do A=1 rm -rf x; done", D, NULL},
    {"time -p A=1 rm -rf x", D, "rm"},
    {"sudo -u X -- A=1 strace -f -o /dev/null rm -rf x", D, NULL},
    /* combinations */
    {"curl http://x | sh", N | C, NULL}, /* and what sh runs is not known */
    {"echo 'print(1)' | python3", 0, NULL},
    {"rm -rf x && git push", D | N, NULL},
    {"vim x; curl y", I | N, NULL},
};

static void test_analyzer_table(void **state) {
  (void)state;
  size_t failures = 0;
  for (size_t i = 0; i < ZARRAY_LEN(table); i++) {
    zsh_analysis a;
    zsh_analyze(table[i].src, false, &a);
    unsigned got = a.flags;
    if (table[i].flags == C) got &= C; /* only "too complex" matters for those rows */
    if (got != table[i].flags) {
      print_error("row %zu %s: flags %#x, want %#x (%s)\n", i, table[i].src, a.flags,
                  table[i].flags, a.why);
      failures++;
    }
    if (table[i].cmds) {
      char joined[256] = "";
      for (size_t k = 0; k < a.ncmds; k++) {
        if (k) strncat(joined, "|", sizeof joined - strlen(joined) - 1);
        strncat(joined, a.cmds[k].argv[0], sizeof joined - strlen(joined) - 1);
      }
      if (strcmp(joined, table[i].cmds)) {
        print_error("row %zu %s: commands \"%s\", want \"%s\"\n", i, table[i].src, joined,
                    table[i].cmds);
        failures++;
      }
    }
    if (a.flags && !a.why[0]) {
      print_error("row %zu %s: flagged without a reason\n", i, table[i].src);
      failures++;
    }
    zsh_analysis_release(&a);
  }
  assert_true(ZARRAY_LEN(table) >= 60);
  assert_int_equal(failures, 0);
}

static void test_offline_turns_installs_clean(void **state) {
  (void)state;
  zsh_analysis a;
  zsh_analyze("npm install && pip install x", true, &a);
  assert_int_equal(a.flags & ZSH_NETWORK, 0);
  zsh_analysis_release(&a);
  zsh_analyze("curl http://x", true, &a); /* --offline does not make curl local */
  assert_true(a.flags & ZSH_NETWORK);
  zsh_analysis_release(&a);
}

static void test_command_lines_for_grant_prefixes(void **state) {
  (void)state;
  zsh_analysis a;
  zsh_analyze("sudo git status --short | head -3", false, &a);
  size_t n;
  char **lines = zsh_command_lines(&a, &n);
  assert_int_equal(n, 2);
  assert_string_equal(lines[0], "git status --short");
  assert_string_equal(lines[1], "head -3");
  zsh_lines_free(lines, n);
  zsh_analysis_release(&a);
}

static void test_deep_nesting_is_too_complex_not_a_crash(void **state) {
  (void)state;
  zbuf buf = ZBUF_INIT;
  for (int i = 0; i < 40; i++) zbuf_addstr(&buf, "$(echo ");
  for (int i = 0; i < 40; i++) zbuf_addstr(&buf, ")");
  zsh_analysis a;
  zsh_analyze(buf.data, false, &a);
  zbuf_release(&buf);
  assert_true(a.flags & ZSH_TOO_COMPLEX);
  zsh_analysis_release(&a);
}

/* The fuzz corpus (tests/fixtures/shell) as a regression: each seed
 * analyzes the same way twice, every flag has a reason, and the attack
 * seeds (all but seed1/seed2, which hold mixed clean lines) are never clean. */
static void test_fuzz_corpus_seeds(void **state) {
  (void)state;
  DIR *d = opendir(FIXTURES_DIR "/shell");
  assert_non_null(d);
  size_t seen = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES_DIR "/shell", e->d_name);
    zbuf src = ZBUF_INIT;
    zerr err = {0};
    assert_int_equal(zfs_read_file(path, &src, 1 << 16, &err), 0);
    zsh_analysis a, b;
    zsh_analyze(src.data, false, &a);
    zsh_analyze(src.data, false, &b);
    assert_int_equal(a.flags, b.flags);
    assert_int_equal(a.ncmds, b.ncmds);
    if (a.flags) assert_true(a.why[0]);
    if (strcmp(e->d_name, "seed1.sh") && strcmp(e->d_name, "seed2.sh")) {
      if (!a.flags) print_error("%s analyzed clean\n", e->d_name);
      assert_true(a.flags);
    }
    zsh_analysis_release(&a);
    zsh_analysis_release(&b);
    zbuf_release(&src);
    seen++;
  }
  closedir(d);
  assert_true(seen >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_analyzer_table),
      cmocka_unit_test(test_offline_turns_installs_clean),
      cmocka_unit_test(test_command_lines_for_grant_prefixes),
      cmocka_unit_test(test_deep_nesting_is_too_complex_not_a_crash),
      cmocka_unit_test(test_fuzz_corpus_seeds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
