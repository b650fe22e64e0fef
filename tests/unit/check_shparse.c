/* check_shparse.c - table-driven tests of the sh -c parser: which simple
 * commands a script holds, how its words read after quote removal, errors. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shparse/shparse.h"
#include "ck_util.h"

/*
 * A parse renders as one line per simple command, joined by " ## ":
 *   [ctx:]{assign}... word[flags]... redir...
 * ctx letters: s subst, h here-doc, f function, b background, p pipeline,
 * u subshell, c compound, r process substitution, a arithmetic/[[ ]].
 * word flags: Q quoted, E expansion, S substitution, G glob, T tilde,
 * A arithmetic, B brace. A redirection is fd, operator, target.
 * A failure renders as "ERR line:col message".
 */
struct buf {
	char s[8192];
	size_t n;
};

static void put(struct buf *b, const char *s)
{
	size_t l = strlen(s);

	ck_assert_uint_lt(b->n + l, sizeof(b->s));
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

static void put_flags(struct buf *b, unsigned f)
{
	static const char letters[] = "QESGTAB";
	char tmp[16];
	size_t n = 0;

	for (int i = 0; i < 7; i++)
		if (f & (1u << i))
			tmp[n++] = letters[i];
	if (!n)
		return;
	tmp[n] = '\0';
	put(b, "[");
	put(b, tmp);
	put(b, "]");
}

static void render_cmd(struct buf *b, const struct pdk_sh_command *c)
{
	static const char letters[] = "shfbpucra";
	bool first = true;
	char tmp[16];
	size_t n = 0;

	for (int i = 0; i < 9; i++)
		if (c->context & (1u << i))
			tmp[n++] = letters[i];
	if (n) {
		tmp[n] = '\0';
		put(b, tmp);
		put(b, ":");
	}
	for (size_t i = 0; i < c->nassigns; i++, first = false) {
		put(b, first ? "{" : " {");
		put(b, c->assigns[i].text);
		put(b, "}");
		put_flags(b, c->assigns[i].flags);
	}
	for (size_t i = 0; i < c->nwords; i++, first = false) {
		if (!first)
			put(b, " ");
		put(b, c->words[i].text);
		put_flags(b, c->words[i].flags);
	}
	for (size_t i = 0; i < c->nredirs; i++, first = false) {
		if (!first)
			put(b, " ");
		if (c->redirs[i].fd >= 0) {
			snprintf(tmp, sizeof(tmp), "%d", c->redirs[i].fd);
			put(b, tmp);
		}
		put(b, pdk_sh_redir_op_name(c->redirs[i].op));
		put(b, c->redirs[i].target.text);
		put_flags(b, c->redirs[i].target.flags);
	}
}

static void render(struct buf *b, const char *script, size_t len)
{
	struct pdk_sh_script *s = NULL;
	struct pdk_error err;
	int r;

	b->n = 0;
	b->s[0] = '\0';
	r = pdk_sh_parse(script, len, &s, &err);
	if (r < 0) {
		char tmp[400];

		ck_assert_int_eq(r, -EINVAL);
		ck_assert_ptr_null(s);
		snprintf(tmp, sizeof(tmp), "ERR %d:%d %s", err.line, err.column, err.message);
		put(b, tmp);
		return;
	}
	for (size_t i = 0; i < pdk_sh_ncommands(s); i++) {
		if (i)
			put(b, " ## ");
		render_cmd(b, pdk_sh_command_at(s, i));
	}
	pdk_sh_script_free(s);
}

struct row {
	const char *script;
	const char *want; /* an ERR row matches when the rendering starts with it */
};

static const struct row rows[] = {
	/* plain commands and the hostile spellings of a command name */
	{ "ls", "ls" },
	{ "ls -la /tmp", "ls -la /tmp" },
	{ "/bin/rm -rf x", "/bin/rm -rf x" },
	{ "\\rm x", "rm[Q] x" },
	{ "r''m x", "rm[Q] x" },
	{ "\"rm\" x", "rm[Q] x" },
	{ "'r'm x", "rm[Q] x" },
	{ "\"/bin/rm\" x", "/bin/rm[Q] x" },
	{ "r\"\"m", "rm[Q]" },
	{ "r\\m", "rm[Q]" },
	{ "$'rm' x", "rm[Q] x" },
	{ "$'\\x72\\x6d' x", "rm[Q] x" },
	{ "$'\\162m'", "rm[Q]" },
	{ "$'\\u0072m'", "rm[Q]" },
	{ "$'a\\'b' $'\\n'", "a'b[Q] \n[Q]" },
	{ "$\"rm\"", "rm[Q]" },
	{ "$(printf /bin/rm) x", "$(printf /bin/rm)[S] x ## s:printf /bin/rm" },
	{ "`printf rm` x", "`printf rm`[S] x ## s:printf rm" },
	{ "$cmd x", "$cmd[E] x" },
	{ "${cmd} x", "${cmd}[E] x" },
	{ "r$@m", "r$@m[E]" },
	{ "*rm x", "*rm[G] x" },
	{ "r?", "r?[G]" },
	{ "[r]m", "[r]m[G]" },
	{ "{rm,-rf,x}", "{rm,-rf,x}[B]" },
	{ "{a..c}", "{a..c}[B]" },
	{ "{a}", "{a}" },
	{ "~/bin/rm", "~/bin/rm[T]" },
	{ "eval rm x", "eval rm x" },
	{ "eval 'rm x'", "eval rm x[Q]" },
	{ ". ./x", ". ./x" },
	{ "source ./x", "source ./x" },
	{ "exec /bin/sh", "exec /bin/sh" },
	{ "env -i rm x", "env -i rm x" },
	{ "xargs rm < list", "xargs rm <list" },
	{ "find . -delete", "find . -delete" },
	{ "find . -exec rm {} \\;", "find . -exec rm {} ;[Q]" },
	{ "command -p rm", "command -p rm" },
	{ "sh -c \"sh -c 'sudo x'\"", "sh -c sh -c 'sudo x'[Q]" },
	{ "bash -c 'rm -rf /'", "bash -c rm -rf /[Q]" },
	{ "sudo rm x", "sudo rm x" },
	{ "nohup nice -n 5 rm x &", "b:nohup nice -n 5 rm x" },

	/* quoting and escapes */
	{ "echo 'a b' \"c d\" e\\ f", "echo a b[Q] c d[Q] e f[Q]" },
	{ "echo \"a\\\"b\"", "echo a\"b[Q]" },
	{ "echo \"a\\b\"", "echo a\\b[Q]" },
	{ "echo \"\\$x\"", "echo $x[Q]" },
	{ "echo '$x'", "echo $x[Q]" },
	{ "echo \"$x\"", "echo $x[QE]" },
	{ "echo \"*\" '?' \\[a]", "echo *[Q] ?[Q] [a][Q]" },
	{ "echo \"~\" \\~", "echo ~[Q] ~[Q]" },
	{ "echo a~", "echo a~" },
	{ "echo ''", "echo [Q]" },
	{ "echo \"\"", "echo [Q]" },
	{ "echo 'it'\\''s'", "echo it's[Q]" },
	{ "echo \"a'b\"", "echo a'b[Q]" },
	{ "echo 'a\"b'", "echo a\"b[Q]" },
	{ "echo \"multi\nline\"", "echo multi\nline[Q]" },
	{ "echo \\#x #comment", "echo #x[Q]" },
	{ "echo a#b", "echo a#b" },
	{ "# only a comment", "" },
	{ "", "" },
	{ "   \n\n  ", "" },
	{ "echo x # trailing; rm y", "echo x" },

	/* backslash-newline */
	{ "ec\\\nho hi", "echo hi" },
	{ "echo a \\\n b", "echo a b" },
	{ "echo a &\\\n& echo b", "echo a ## echo b" },
	{ "echo '\\\n'", "echo \\\n[Q]" },
	{ "echo \"a\\\nb\"", "echo ab[Q]" },
	{ "r\\\nm x", "rm x" },

	/* parameter expansion */
	{ "echo $HOME/x", "echo $HOME/x[E]" },
	{ "echo $1 $@ $* $# $? $- $$ $! $0",
	  "echo $1[E] $@[E] $*[E] $#[E] $?[E] $-[E] $$[E] $![E] $0[E]" },
	{ "echo ${x:-default}", "echo ${x:-default}[E]" },
	{ "echo ${x:-$(rm y)}", "echo ${x:-$(rm y)}[ES] ## s:rm y" },
	{ "echo \"${x:-\"$(id)\"}\"", "echo ${x:-\"$(id)\"}[QES] ## s:id" },
	{ "echo ${#x} ${x%%.*} ${x//a/b}", "echo ${#x}[E] ${x%%.*}[E] ${x//a/b}[E]" },
	{ "echo ${x:-'}'}", "echo ${x:-'}'}[E]" },
	{ "echo $", "echo $" },
	{ "echo $ x", "echo $ x" },
	{ "echo a$", "echo a$" },

	/* command substitution, nested */
	{ "echo $(date)", "echo $(date)[S] ## s:date" },
	{ "echo $(a $(b $(c)))",
	  "echo $(a $(b $(c)))[S] ## s:a $(b $(c))[S] ## s:b $(c)[S] ## s:c" },
	{ "echo `a \\`b\\``", "echo `a \\`b\\``[S] ## s:a `b`[S] ## s:b" },
	{ "echo \"$(a) `b`\"", "echo $(a) `b`[QS] ## s:a ## s:b" },
	{ "echo $(a; b | c)", "echo $(a; b | c)[S] ## s:a ## sp:b ## sp:c" },
	{ "echo $(case x in a) rm y;; esac)",
	  "echo $(case x in a) rm y;; esac)[S] ## sc:rm y" },
	{ "echo $( )", "echo $( )[S]" },
	{ "echo $(\n rm x\n)", "echo $(\n rm x\n)[S] ## s:rm x" },
	{ "echo $((echo a); echo b)", "echo $((echo a); echo b)[S] ## su:echo a ## s:echo b" },
	{ "x=$(rm y)", "{x=$(rm y)}[S] ## s:rm y" },
	{ "echo \"`echo \\\"q\\\"`\"", "echo `echo \\\"q\\\"`[QS] ## s:echo q[Q]" },

	/* arithmetic */
	{ "echo $((1 + 2))", "echo $((1 + 2))[A]" },
	{ "echo $(( (1+2) * 3 ))", "echo $(( (1+2) * 3 ))[A]" },
	{ "echo $(( $(rm x) + 1 ))", "echo $(( $(rm x) + 1 ))[SA] ## sa:rm x" },
	{ "echo $[1+2]", "echo $[1+2][A]" },
	{ "(( i++ ))", "" },
	{ "(( x = $(id -u) ))", "sa:id -u" },
	{ "for ((i = 0; i < 3; i++)); do echo $i; done", "c:echo $i[E]" },

	/* pipelines and lists */
	{ "a | b | c", "p:a ## p:b ## p:c" },
	{ "a |& b", "p:a ## p:b" },
	{ "! a | b", "p:a ## p:b" },
	{ "! a", "a" },
	{ "a && b || c", "a ## b ## c" },
	{ "a; b; c", "a ## b ## c" },
	{ "a & b", "b:a ## b" },
	{ "a | b &", "bp:a ## bp:b" },
	{ "a && b & c", "b:a ## b:b ## c" },
	{ "a\nb\n\nc", "a ## b ## c" },
	{ "a &&\nb ||\n\nc |\nd", "a ## b ## p:c ## p:d" },
	{ "a;", "a" },
	{ "a &", "b:a" },

	/* subshells and groups */
	{ "(cd /tmp && rm x)", "u:cd /tmp ## u:rm x" },
	{ "{ a; b; }", "c:a ## c:b" },
	{ "{ a; } > out", "c:a" },
	{ "( (a) )", "u:a" },
	{ "(a) | (b)", "pu:a ## pu:b" },
	{ "{ a & } ; b", "bc:a ## b" },
	{ "echo }", "echo }" },
	{ "echo {", "echo {" },

	/* redirections */
	{ "cmd >out 2>&1", "cmd >out 2>&1" },
	{ "cmd 2>/dev/null <in >>log", "cmd 2>/dev/null <in >>log" },
	{ "cmd >|f <>g", "cmd >|f <>g" },
	{ "cmd &>f &>>g", "cmd &>f &>>g" },
	{ "cmd <<<'here string'", "cmd <<<here string[Q]" },
	{ "cmd 3<&- >&2 4>&1", "cmd 3<&- >&2 4>&1" },
	{ ">out", ">out" },
	{ "2>err cmd x", "cmd x 2>err" },
	{ "cmd >$(mktemp)", "cmd >$(mktemp)[S] ## s:mktemp" },
	{ "cmd 2 > f", "cmd 2 >f" },
	{ "a=1 b=2 cmd", "{a=1} {b=2} cmd" },
	{ "a=1", "{a=1}" },
	{ "a+=x cmd", "{a+=x} cmd" },
	{ "cmd a=1", "cmd a=1" },
	{ "'a'=1 cmd", "a=1[Q] cmd" },
	{ "1a=1 cmd", "1a=1 cmd" },
	{ "PATH=~/bin:~/x cmd", "{PATH=~/bin:~/x}[T] cmd" },
	{ "arr=(a $(b) c) cmd", "{arr=(a $(b) c)}[S] cmd ## s:b" },

	/* here-documents */
	{ "cat <<EOF\nhello\nEOF", "cat <<EOF" },
	{ "cat <<EOF\n$(rm x)\nEOF\n", "cat <<EOF ## sh:rm x" },
	{ "cat <<EOF\n`rm x`\nEOF\n", "cat <<EOF ## sh:rm x" },
	{ "cat <<EOF\n'$(rm x)'\nEOF\n", "cat <<EOF ## sh:rm x" },
	{ "cat <<EOF\n${x:-$(rm x)}\nEOF\n", "cat <<EOF ## sh:rm x" },
	{ "cat <<'EOF'\n$(rm x)\nEOF\n", "cat <<EOF[Q]" },
	{ "cat <<\"EOF\"\n$(rm x)\nEOF\n", "cat <<EOF[Q]" },
	{ "cat <<\\EOF\n$(rm x)\nEOF\n", "cat <<EOF[Q]" },
	{ "cat <<EOF\n\\$(rm x)\nEOF\n", "cat <<EOF" },
	{ "cat <<-EOF\n\t$(a)\n\tEOF\nb", "cat <<-EOF ## sh:a ## b" },
	{ "cat <<A <<B\n$(one)\nA\n$(two)\nB\n", "cat <<A <<B ## sh:one ## sh:two" },
	{ "cat <<EOF | sh\nrm -rf x\nEOF\n", "p:cat <<EOF ## p:sh" },
	{ "cat <<EOF &\n$(a)\nEOF\n", "b:cat <<EOF ## shb:a" },
	{ "x=$(cat <<EOF\n$(inner)\nEOF\n)",
	  "{x=$(cat <<EOF\n$(inner)\nEOF\n)}[S] ## s:cat <<EOF ## sh:inner" },
	{ "while read l; do echo $l; done <<EOF\n$(rm me)\nEOF\n",
	  "c:read l ## c:echo $l[E] ## sh:rm me" },
	{ "cat <<EOF; echo after\nbody\nEOF\n", "cat <<EOF ## echo after" },
	{ "cat <<EOF\nEOFX\nEOF", "cat <<EOF" },
	{ "cat <<EOF\nx\n EOF\nEOF\n", "cat <<EOF" },

	/* compound commands */
	{ "if a; then b; fi", "c:a ## c:b" },
	{ "if a; then b; elif c; then d; else e; fi", "c:a ## c:b ## c:c ## c:d ## c:e" },
	{ "if a\nthen\n  b\nfi", "c:a ## c:b" },
	{ "while a; do b; done", "c:a ## c:b" },
	{ "until a; do b; done", "c:a ## c:b" },
	{ "for x in a b $(ls); do rm $x; done", "sc:ls ## c:rm $x[E]" },
	{ "for x; do echo $x; done", "c:echo $x[E]" },
	{ "for x\ndo\necho $x\ndone", "c:echo $x[E]" },
	{ "for x in a b\ndo echo $x; done", "c:echo $x[E]" },
	{ "select x in a b; do echo $x; done", "c:echo $x[E]" },
	{ "case $x in a) rm y;; b|c) ls;; *) ;; esac", "c:rm y ## c:ls" },
	{ "case x in (a) one;; esac", "c:one" },
	{ "case x in a) one;& b) two;;& esac", "c:one ## c:two" },
	{ "case x in\n a)\n  one\n  ;;\n b) two\nesac", "c:one ## c:two" },
	{ "case x in esac", "" },
	{ "case $(id) in *) ;; esac", "sc:id" },
	{ "if if a; then b; fi; then c; fi", "c:a ## c:b ## c:c" },
	{ "while true; do break; done &", "bc:true ## bc:break" },
	{ "echo if then fi", "echo if then fi" },
	{ "a=1 if", "{a=1} if" },
	{ "\"if\" x", "if[Q] x" },
	{ "[[ -f x && $(id) == y ]]", "sa:id" },
	{ "[[ $x =~ ^(a|b)$ ]] && echo ok", "echo ok" },
	{ "[[ a < b ]]", "" },

	/* functions */
	{ "f() { rm x; }", "fc:rm x" },
	{ "f () { rm x; }; f", "fc:rm x ## f" },
	{ "function g { ls; }", "fc:ls" },
	{ "function g() { ls; }", "fc:ls" },
	{ "f() (rm x)", "fu:rm x" },
	{ "f()\n{\n a\n}", "fc:a" },

	/* process substitution and bash-isms */
	{ "diff <(ls a) >(cat)", "diff <(ls a)[S] >(cat)[S] ## sr:ls a ## sr:cat" },
	{ "cat < <(rm x)", "cat <<(rm x)[S] ## sr:rm x" },
	{ "time ls", "time ls" },

	/* errors, with where they are */
	{ "echo 'x", "ERR 1:6 unterminated single quote" },
	{ "echo \"x", "ERR 1:6 unterminated double quote" },
	{ "echo ok\necho \"x", "ERR 2:6 unterminated double quote" },
	{ "echo $(x", "ERR 1:6 unterminated command substitution" },
	{ "echo `x", "ERR 1:6 unterminated backquote" },
	{ "echo ${x", "ERR 1:6 unterminated parameter expansion" },
	{ "echo $((1+2", "ERR 1:12 expected ')' to match '(' at 1:8" },
	{ "echo $'x", "ERR 1:6 unterminated $'...' quote" },
	{ "if true; then echo", "ERR 1:19 expected 'fi' to match 'if' at 1:1" },
	{ "if true; echo; fi", "ERR 1:16 expected 'then' to match 'if' at 1:1" },
	{ "while a; b; done", "ERR 1:13 expected 'do' to match 'while' at 1:1" },
	{ "for x in a; do b", "ERR 1:17 expected 'done'" },
	{ "for 1 in a; do b; done", "ERR 1:5 expected a variable name after 'for'" },
	{ "case x in a) b", "ERR 1:15 expected 'esac' to match 'case' at 1:1" },
	{ "{ echo }", "ERR 1:9 expected '}' to match '{' at 1:1" },
	{ "(a", "ERR 1:3 expected ')' to match '(' at 1:1" },
	{ "a)", "ERR 1:2 syntax error near unexpected token ')'" },
	{ "a | ", "ERR 1:5 syntax error: unexpected end of file" },
	{ "a && && b", "ERR 1:6 syntax error near unexpected token '&&'" },
	{ "; a", "ERR 1:1 syntax error near unexpected token ';'" },
	{ "a ;; b", "ERR 1:3 syntax error near unexpected token ';;'" },
	{ "then", "ERR 1:1 syntax error near unexpected token 'then'" },
	{ "fi", "ERR 1:1 syntax error near unexpected token 'fi'" },
	{ "if; then a; fi", "ERR 1:3 syntax error near unexpected token ';'" },
	{ "cmd >", "ERR 1:6 expected a word after '>'" },
	{ "cmd > | x", "ERR 1:7 expected a word after '>'" },
	{ "cat <<EOF\nno end", "ERR 1:5 here-document not terminated" },
	{ "cat <<EOF", "ERR 1:5 here-document not terminated" },
	{ "echo @(a)", "ERR 1:7 syntax error near unexpected token '('" },
	{ "echo a (b)", "ERR 1:8 syntax error near unexpected token '('" },
	{ "coproc x", "ERR 1:1 'coproc' is not supported" },
	{ "f() x", "ERR 1:5 expected a compound command as function body" },
	{ "[[ a ; b ]]", "ERR 1:6 syntax error near unexpected token ';'" },
	{ "[[ a", "ERR 1:5 expected ']]' to match '[[' at 1:1" },
	{ "[[ a\n rm x ]]", "ERR 1:5 syntax error near unexpected token 'newline'" },
	{ "[[ a &&\n b ]] && c", "c" },
	{ "echo $(a; ;)", "ERR 1:11 syntax error near unexpected token ';'" },
	{ "x=(a", "ERR 1:3 unterminated array assignment" },
	{ "echo `echo 'x`", "ERR 1:12 unterminated single quote" },
	{ "cat <<EOF\n$(rm\nEOF\n", "ERR 2:1 unterminated command substitution" },
};

START_TEST(test_table)
{
	const struct row *r = &rows[_i];
	struct buf b;

	render(&b, r->script, strlen(r->script));
	if (strncmp(r->want, "ERR ", 4) == 0)
		ck_assert_msg(strncmp(b.s, r->want, strlen(r->want)) == 0,
			      "script %d <%s>: want <%s>, got <%s>", _i, r->script, r->want, b.s);
	else
		ck_assert_msg(strcmp(b.s, r->want) == 0, "script %d <%s>: want <%s>, got <%s>", _i,
			      r->script, r->want, b.s);
}
END_TEST

/* Every literal word and span the policy matches against. */
START_TEST(test_fields)
{
	static const char script[] = "echo ok\nFOO=1 \\rm -f 'a b' 2>&1 | grep $(id -u)\n";
	struct pdk_sh_script *s = NULL;
	const struct pdk_sh_command *c;
	struct pdk_error err;

	ck_assert_int_eq(pdk_sh_parse(script, strlen(script), &s, &err), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), 4);
	ck_assert_ptr_null(pdk_sh_command_at(s, 4));

	c = pdk_sh_command_at(s, 1);
	ck_assert_str_eq(c->text, "FOO=1 \\rm -f 'a b' 2>&1");
	ck_assert_int_eq(c->line, 2);
	ck_assert_int_eq(c->column, 1);
	ck_assert_uint_eq(c->offset, 8);
	ck_assert_uint_eq(c->length, strlen(c->text));
	ck_assert_uint_eq(c->nassigns, 1);
	ck_assert_str_eq(c->assigns[0].text, "FOO=1");
	ck_assert_uint_eq(c->nwords, 3);
	ck_assert_str_eq(c->words[0].text, "rm");
	ck_assert_uint_eq(c->words[0].flags, PDK_SH_QUOTED);
	ck_assert_uint_eq(c->words[0].offset, 14);
	ck_assert_uint_eq(c->words[0].length, 3);
	ck_assert_str_eq(c->words[2].text, "a b");
	ck_assert_uint_eq(c->nredirs, 1);
	ck_assert_int_eq(c->redirs[0].fd, 2);
	ck_assert_int_eq(c->redirs[0].op, PDK_SH_REDIR_DUPOUT);
	ck_assert_str_eq(c->redirs[0].target.text, "1");
	ck_assert_uint_eq(c->context, PDK_SH_IN_PIPELINE);

	c = pdk_sh_command_at(s, 2);
	ck_assert_str_eq(c->text, "grep $(id -u)");
	ck_assert_uint_eq(c->words[1].flags, PDK_SH_SUBST);

	c = pdk_sh_command_at(s, 3);
	ck_assert_str_eq(c->text, "id -u");
	ck_assert_int_eq(c->line, 2);
	ck_assert_int_eq(c->column, 34);
	ck_assert_uint_eq(c->subst_depth, 1);
	ck_assert_uint_eq(c->context, PDK_SH_IN_PIPELINE | PDK_SH_IN_SUBST);
	pdk_sh_script_free(s);
}
END_TEST

/* Inside backticks, offsets still point into the script. */
START_TEST(test_backtick_offsets)
{
	static const char script[] = "echo `ls \\`id\\``";
	struct pdk_sh_script *s = NULL;

	ck_assert_int_eq(pdk_sh_parse(script, strlen(script), &s, NULL), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), 3);
	ck_assert_str_eq(pdk_sh_command_at(s, 1)->text, "ls `id`");
	ck_assert_uint_eq(pdk_sh_command_at(s, 1)->offset, 6);
	ck_assert_str_eq(pdk_sh_command_at(s, 2)->text, "id");
	ck_assert_uint_eq(pdk_sh_command_at(s, 2)->offset, 11);
	ck_assert_int_eq(pdk_sh_command_at(s, 2)->column, 12);
	pdk_sh_script_free(s);
}
END_TEST

START_TEST(test_heredoc_body)
{
	static const char script[] = "cat <<-EOF > f\n\tline $(x)\n\tEOF\n";
	struct pdk_sh_script *s = NULL;
	const struct pdk_sh_command *c;

	ck_assert_int_eq(pdk_sh_parse(script, strlen(script), &s, NULL), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), 2);
	c = pdk_sh_command_at(s, 0);
	ck_assert_uint_eq(c->nredirs, 2);
	ck_assert_str_eq(c->redirs[0].heredoc, "line $(x)\n");
	ck_assert_uint_eq(c->redirs[0].heredoc_flags, PDK_SH_SUBST);
	ck_assert_ptr_null(c->redirs[1].heredoc);
	c = pdk_sh_command_at(s, 1);
	ck_assert_str_eq(c->text, "x");
	ck_assert_uint_eq(c->context, PDK_SH_IN_HEREDOC | PDK_SH_IN_SUBST);
	ck_assert_int_eq(c->line, 2);
	pdk_sh_script_free(s);
}
END_TEST

/* The arithmetic bash evaluates, and the values loops give their variables. */
START_TEST(test_arith_texts)
{
	static const char script[] =
	    "echo $((x+1)) $[y]; (( z )); for ((i=0;i<n;i++)); do :; done\n"
	    "[[ $a -eq 1 && $s == t || b -lt `echo $((k))` ]]\n"
	    "for v in 1 'a[$(id)]'; do :; done; for w; do :; done";
	static const char *const want[] = {"$((x+1))", "$[y]",	"(( z ))", "((i=0;i<n;i++))",
					   "$a",       "1",	"b",	   "`echo $((k))`",
					   "$((k))"};
	struct pdk_sh_script *s = NULL;
	size_t n;

	ck_assert_int_eq(pdk_sh_parse(script, strlen(script), &s, NULL), 0);
	n = pdk_sh_narith(s);
	ck_assert_uint_eq(n, PDK_ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t j = 0; j < n; j++)
			found |= !strcmp(pdk_sh_arith_at(s, j), want[i]);
		ck_assert_msg(found, "no arithmetic text %s", want[i]);
	}
	ck_assert_ptr_null(pdk_sh_arith_at(s, n));
	ck_assert_uint_eq(pdk_sh_nloopvals(s), 2);
	ck_assert_str_eq(pdk_sh_loopval_at(s, 0)->text, "v=1");
	ck_assert_str_eq(pdk_sh_loopval_at(s, 1)->text, "v=a[$(id)]");
	ck_assert_uint_eq(pdk_sh_loopval_at(s, 1)->flags, PDK_SH_QUOTED);
	ck_assert_ptr_null(pdk_sh_loopval_at(s, 2));
	pdk_sh_script_free(s);
}
END_TEST

/* Arithmetic inside other constructs: subscripts, substring offsets and
 * lengths, [[ -v ]] (whose quoted subscript holds code the parser never ran). */
START_TEST(test_arith_sources)
{
	static const char script[] = "echo ${a[i]} ${#b[$j]} ${c[@]} ${s:o} \"${t:1:n}\" ${u:-d} "
				     "${v: -2}; [[ -v 'w[$(id)]' ]]; [[ -v z[k] ]]";
	static const struct {
		const char *text, *where, *array;
		bool code;
	} want[] = {
	    {"i", "${a[i]}", "a", false},	 {"$j", "${#b[$j]}", "b", false},
	    {"o", "${s:o}", NULL, false},	 {"1", "${t:1:n}", NULL, false},
	    {"n", "${t:1:n}", NULL, false},	 {" -2", "${v: -2}", NULL, false},
	    {"$(id)", "[[ -v w[$(id)] ]]", "w", true}, {"k", "[[ -v z[k] ]]", "z", false},
	};
	struct pdk_sh_script *s = NULL;

	ck_assert_int_eq(pdk_sh_parse(script, strlen(script), &s, NULL), 0);
	ck_assert_uint_eq(pdk_sh_narith(s), PDK_ARRAY_SIZE(want));
	for (size_t i = 0; i < PDK_ARRAY_SIZE(want); i++) {
		const struct pdk_sh_arith_src *src = pdk_sh_arith_src_at(s, i);

		ck_assert_str_eq(pdk_sh_arith_at(s, i), want[i].text);
		ck_assert_str_eq(src->where, want[i].where);
		if (want[i].array)
			ck_assert_str_eq(src->array, want[i].array);
		else
			ck_assert_ptr_null(src->array);
		ck_assert_int_eq(src->code, want[i].code);
	}
	ck_assert_ptr_null(pdk_sh_arith_src_at(s, PDK_ARRAY_SIZE(want)));
	pdk_sh_script_free(s);
}
END_TEST

/* A failed parse leaves *ret alone; a NUL byte is just a character. */
START_TEST(test_api_edges)
{
	struct pdk_sh_script *s = (struct pdk_sh_script *)&s;
	struct pdk_error err;

	ck_assert_int_eq(pdk_sh_parse("a 'b", 4, &s, &err), -EINVAL);
	ck_assert_ptr_eq(s, (struct pdk_sh_script *)&s);
	ck_assert_int_eq(pdk_sh_parse("a 'b", 4, &s, NULL), -EINVAL);
	/* len, not the NUL, bounds the script */
	s = NULL;
	ck_assert_int_eq(pdk_sh_parse("ls; rm x", 2, &s, &err), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), 1);
	pdk_sh_script_free(s);
	s = NULL;
	ck_assert_int_eq(pdk_sh_parse("a\0b c", 5, &s, &err), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), 1);
	ck_assert_uint_eq(pdk_sh_command_at(s, 0)->nwords, 2);
	pdk_sh_script_free(s);
	pdk_sh_script_free(NULL);
	ck_assert_uint_eq(pdk_sh_ncommands(NULL), 0);
	ck_assert_int_eq(pdk_sh_parse_bytes((const uint8_t *)"a | b", 5), 0);
	ck_assert_int_eq(pdk_sh_parse_bytes((const uint8_t *)"a |", 3), -EINVAL);
	ck_assert_int_eq(pdk_sh_parse_bytes(NULL, 0), 0);
}
END_TEST

static char *repeat3(const char *open, const char *mid, const char *close, size_t n)
{
	size_t lo = strlen(open), lm = strlen(mid), lc = strlen(close);
	char *s = malloc(n * (lo + lc) + lm + 1), *p = s;

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, mid, lm);
	p += lm;
	for (size_t i = 0; i < n; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	return s;
}

/* 10,000 levels of each kind of nesting: an error, never a stack overflow;
 * 200 levels still parse. */
START_TEST(test_deep_nesting)
{
	static const struct {
		const char *open, *mid, *close;
	} kinds[] = {
		{ "(", "true", ")" },	     { "( ", "true", " )" },
		{ "echo $(", "true", ")" },  { "echo \"$(", "true", ")\"" },
		{ "{ ", "true", "; }" },     { "if ", "true", "; then :; fi" },
		{ "echo ${x:-", "y", "}" },  { "echo $((", "1", "))" },
		{ "f() { ", "x", "; }" },    { "cat <(", "x", ")" },
		{ "echo $[", "1", "]" },     { "x=(", "a", ")" },
		{ "while ", "a", "; do :; done" },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pdk_sh_script *s = NULL;
		struct pdk_error err;
		char *deep = repeat3(kinds[k].open, kinds[k].mid, kinds[k].close, 10000);
		char *ok = repeat3(kinds[k].open, kinds[k].mid, kinds[k].close, 50);
		int r = pdk_sh_parse(deep, strlen(deep), &s, &err);

		ck_assert_msg(r == -EINVAL, "kind %zu: %d", k, r);
		ck_assert_str_eq(err.message, "nested too deeply (limit 200)");
		ck_assert_int_eq(err.line, 1);
		r = pdk_sh_parse(ok, strlen(ok), &s, &err);
		ck_assert_msg(r == 0, "kind %zu at depth 50: %s", k, err.message);
		pdk_sh_script_free(s);
		free(deep);
		free(ok);
	}
}
END_TEST

/* Unbalanced: 10,000 openers and nothing else. */
START_TEST(test_unbalanced_nesting)
{
	struct pdk_error err;
	struct pdk_sh_script *s = NULL;
	char *deep = repeat3("(", "", "", 10000);

	ck_assert_int_eq(pdk_sh_parse(deep, strlen(deep), &s, &err), -EINVAL);
	ck_assert_str_eq(err.message, "nested too deeply (limit 200)");
	free(deep);
	deep = repeat3("$(", "", "", 10000);
	ck_assert_int_eq(pdk_sh_parse(deep, strlen(deep), &s, &err), -EINVAL);
	free(deep);
	deep = repeat3("\"", "", "", 10001);
	ck_assert_int_eq(pdk_sh_parse(deep, strlen(deep), &s, &err), -EINVAL);
	ck_assert_str_eq(err.message, "unterminated double quote");
	free(deep);
}
END_TEST

static const char *const lines[] = {
	"git status --short | grep -v '^M' > /tmp/out.txt 2>&1\n",
	"for f in $(ls *.c); do gcc -c \"$f\" -o \"${f%.c}.o\" || exit 1; done\n",
	"if [ -f Makefile ]; then make -j4 && echo \"built `date`\"; fi\n",
	"cat <<EOF | sh\necho $(whoami) here\nEOF\n",
	"x=$((x + 1)); case $x in 1|2) echo small;; *) echo big;; esac\n",
	"( cd src && find . -name '*.o' -exec rm {} \\; ) &\n",
};

static char *make_script(size_t min_bytes, size_t *ret_len, size_t *ret_cmds)
{
	/* commands per line above, in order */
	static const size_t per_line[] = { 2, 3, 4, 3, 3, 2 };
	size_t cap = min_bytes + 256, n = 0, cmds = 0;
	char *s = malloc(cap);

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; n < min_bytes; i++) {
		size_t k = i % (sizeof(lines) / sizeof(lines[0])), l = strlen(lines[k]);

		if (n + l >= cap) {
			cap *= 2;
			s = realloc(s, cap);
			ck_assert_ptr_nonnull(s);
		}
		memcpy(s + n, lines[k], l);
		n += l;
		cmds += per_line[k];
	}
	*ret_len = n;
	*ret_cmds = cmds;
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

START_TEST(test_one_megabyte)
{
	struct pdk_sh_script *s = NULL;
	struct pdk_error err;
	size_t len, cmds;
	char *script = make_script(1 << 20, &len, &cmds);
	double t0 = now(), dt;

	ck_assert_int_eq(pdk_sh_parse(script, len, &s, &err), 0);
	dt = now() - t0;
	ck_assert_uint_eq(pdk_sh_ncommands(s), cmds);
	/* line numbers hold up to the end */
	size_t nl = 0;
	for (size_t i = 0; i < len; i++)
		nl += script[i] == '\n';
	ck_assert_int_ge(pdk_sh_command_at(s, cmds - 1)->line, (int)nl - 2);
	ck_assert_int_le(pdk_sh_command_at(s, cmds - 1)->line, (int)nl);
	printf("check_shparse: 1 MB script (%zu commands) parsed in %.1f ms\n", cmds, dt * 1e3);
	/* linear time: a quadratic step would take minutes here */
	ck_assert_msg(dt < 10.0, "1 MB took %.3f s", dt);
	pdk_sh_script_free(s);

	/* the same megabyte with a quote left open at its end fails, and says where */
	static const char tail[] = "echo 'open\n";
	script = realloc(script, len + sizeof(tail));
	ck_assert_ptr_nonnull(script);
	memcpy(script + len, tail, sizeof(tail));
	ck_assert_int_eq(pdk_sh_parse(script, len + sizeof(tail) - 1, &s, &err), -EINVAL);
	ck_assert_str_eq(err.message, "unterminated single quote");
	ck_assert_int_eq(err.line, (int)nl + 1);
	ck_assert_int_eq(err.column, 6);
	free(script);
}
END_TEST

/* Forty "((" that can only be told from "( (" at the end of a megabyte:
 * the look-ahead budget runs out and the parse fails fast, where scanning
 * the megabyte for each would be quadratic. */
START_TEST(test_ambiguous_parens)
{
	static const char rise[] = "echo $((echo ${x:-((((}) )\n";
	static const char flat[] = "echo $(echo hi)\n";
	size_t nflat = (1 << 20) / (sizeof(flat) - 1), len = 0;
	char *s = malloc(40 * (sizeof(rise) - 1) + nflat * (sizeof(flat) - 1));
	struct pdk_sh_script *script = NULL;
	struct pdk_error err;
	double t0;

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < 40; i++, len += sizeof(rise) - 1)
		memcpy(s + len, rise, sizeof(rise) - 1);
	for (size_t i = 0; i < nflat; i++, len += sizeof(flat) - 1)
		memcpy(s + len, flat, sizeof(flat) - 1);
	t0 = now();
	ck_assert_int_eq(pdk_sh_parse(s, len, &script, &err), -EINVAL);
	ck_assert_str_eq(err.message, "too many '((' whose meaning depends on distant text");
	ck_assert_msg(now() - t0 < 2.0, "took %.3f s", now() - t0);

	/* the twin: the same lines without the far-reaching parentheses parse */
	ck_assert_int_eq(pdk_sh_parse(s + 40 * (sizeof(rise) - 1), len - 40 * (sizeof(rise) - 1),
				      &script, &err),
			 0);
	ck_assert_uint_eq(pdk_sh_ncommands(script), 2 * nflat);
	pdk_sh_script_free(script);
	ck_assert_int_eq(pdk_sh_parse(s, 2 * (sizeof(rise) - 1), &script, &err), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(script), 4);
	ck_assert_str_eq(pdk_sh_command_at(script, 1)->text, "echo ${x:-((((}");
	pdk_sh_script_free(script);
	free(s);
}
END_TEST

/* A 1,000-command script: the figure the policy's 1 ms budget depends on. */
START_TEST(test_thousand_commands_time)
{
	struct pdk_sh_script *s = NULL;
	size_t len, cmds, i, rounds = 200;
	char *script = make_script(1, &len, &cmds);
	double t0, dt;

	free(script);
	/* grow until the script holds 1,000 simple commands */
	for (i = 1; ; i++) {
		script = make_script(i * 40, &len, &cmds);
		if (cmds >= 1000)
			break;
		free(script);
	}
	ck_assert_int_eq(pdk_sh_parse(script, len, &s, NULL), 0);
	ck_assert_uint_eq(pdk_sh_ncommands(s), cmds);
	pdk_sh_script_free(s);
	t0 = now();
	for (i = 0; i < rounds; i++) {
		ck_assert_int_eq(pdk_sh_parse(script, len, &s, NULL), 0);
		pdk_sh_script_free(s);
	}
	dt = (now() - t0) / rounds;
	printf("check_shparse: %zu-command script (%zu bytes) parsed in %.1f us\n", cmds, len,
	       dt * 1e6);
	ck_assert_msg(dt < 0.1, "1,000 commands took %.3f ms", dt * 1e3);
	free(script);
}
END_TEST

static Suite *shparse_suite(void)
{
	Suite *s = suite_create("shparse");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_table, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_backtick_offsets);
	tcase_add_test(tc, test_heredoc_body);
	tcase_add_test(tc, test_arith_texts);
	tcase_add_test(tc, test_arith_sources);
	tcase_add_test(tc, test_api_edges);
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_test(tc, test_unbalanced_nesting);
	tcase_add_test(tc, test_one_megabyte);
	tcase_add_test(tc, test_ambiguous_parens);
	tcase_add_test(tc, test_thousand_commands_time);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	printf("check_shparse: %zu table scripts\n", sizeof(rows) / sizeof(rows[0]));
	return pdk_ck_run(shparse_suite());
}
