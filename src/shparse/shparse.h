/* shparse.h - a POSIX sh (plus common bash) parser for `sh -c` scripts: it
 * finds every simple command a script can run, wherever it is nested. */
#ifndef PDK_SHPARSE_H
#define PDK_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* Deeper nesting of any kind ($( ), ${ }, ( ), if, ...) is a parse error. */
#define PDK_SH_MAX_DEPTH 200

/* Word flags: what a word's text hides. A word whose flags contain none of
 * EXPANSION, SUBST, ARITH, GLOB, TILDE, BRACE means exactly its text. */
enum {
	PDK_SH_QUOTED = 1u << 0,    /* some part was quoted or backslash-escaped */
	PDK_SH_EXPANSION = 1u << 1, /* $name, $1, $@, ${...} */
	PDK_SH_SUBST = 1u << 2,     /* $( ), backticks, <( ), >( ) */
	PDK_SH_GLOB = 1u << 3,      /* unquoted * ? or [...] */
	PDK_SH_TILDE = 1u << 4,     /* unquoted leading ~ (or after = and : in NAME=...) */
	PDK_SH_ARITH = 1u << 5,     /* $(( )) or $[ ] */
	PDK_SH_BRACE = 1u << 6,     /* unquoted {a,b} or {1..3}: bash splits it into words */
};

/* Where a command sits; a command at the top level has context 0. The flags
 * accumulate over every enclosing construct. */
enum {
	PDK_SH_IN_SUBST = 1u << 0,      /* inside $( ) or backticks */
	PDK_SH_IN_HEREDOC = 1u << 1,    /* inside an unquoted here-document body */
	PDK_SH_IN_FUNCTION = 1u << 2,   /* inside a function body */
	PDK_SH_IN_BACKGROUND = 1u << 3, /* part of a list ended by & */
	PDK_SH_IN_PIPELINE = 1u << 4,   /* part of a pipeline of two or more commands */
	PDK_SH_IN_SUBSHELL = 1u << 5,   /* inside ( ) */
	PDK_SH_IN_COMPOUND = 1u << 6,   /* inside if/while/until/for/case/{ } */
	PDK_SH_IN_PROCSUBST = 1u << 7,  /* inside <( ) or >( ) */
	PDK_SH_IN_ARITH = 1u << 8,      /* inside $(( )), (( )) or [[ ]] */
};

struct pdk_sh_word {
	/* The value after quote removal when the word is literal; where it holds
	 * expansions, their source text is kept verbatim (see flags). */
	char *text;
	unsigned flags;
	size_t offset; /* byte offset of the word in the script */
	size_t length; /* bytes it spans there */
};

enum pdk_sh_redir_op {
	PDK_SH_REDIR_IN,            /* <   */
	PDK_SH_REDIR_OUT,           /* >   */
	PDK_SH_REDIR_APPEND,        /* >>  */
	PDK_SH_REDIR_CLOBBER,       /* >|  */
	PDK_SH_REDIR_RDWR,          /* <>  */
	PDK_SH_REDIR_DUPIN,         /* <&  */
	PDK_SH_REDIR_DUPOUT,        /* >&  */
	PDK_SH_REDIR_HEREDOC,       /* <<  */
	PDK_SH_REDIR_HEREDOC_STRIP, /* <<- */
	PDK_SH_REDIR_HERESTRING,    /* <<< */
	PDK_SH_REDIR_OUT_ERR,       /* &>  */
	PDK_SH_REDIR_APPEND_ERR,    /* &>> */
};

struct pdk_sh_redir {
	int fd; /* the explicit descriptor (2 in 2>&1), -1 when none was written */
	enum pdk_sh_redir_op op;
	struct pdk_sh_word target; /* file, descriptor, or here-document delimiter */
	/* Here-documents only: the body (tabs stripped for <<-), else NULL, and
	 * the word flags of the body (0 when the delimiter was quoted). */
	char *heredoc;
	unsigned heredoc_flags;
};

struct pdk_sh_command {
	struct pdk_sh_word *words; /* argv; nwords may be 0 (`a=1`, `>f`) */
	size_t nwords;
	struct pdk_sh_word *assigns; /* NAME=value before the command name */
	size_t nassigns;
	struct pdk_sh_redir *redirs;
	size_t nredirs;
	unsigned context;     /* PDK_SH_IN_* */
	unsigned subst_depth; /* how many substitutions enclose it */
	size_t offset;        /* where the command starts in the script */
	size_t length;        /* bytes it spans there */
	int line, column;     /* 1-based, of offset */
	/* The source text of the command (assignments, words and redirections;
	 * not here-document bodies). Inside backticks it is the text after the
	 * backticks' own backslash removal. */
	char *text;
};

struct pdk_sh_script;

/*
 * Parses script (len bytes, need not be NUL-terminated). On success returns
 * 0 and stores a script the caller frees with pdk_sh_script_free(). A script
 * that cannot be parsed gives -EINVAL with err filled (line, column, message);
 * -ENOMEM when memory runs out. *ret is untouched on failure; err may be NULL.
 */
int pdk_sh_parse(const char *script, size_t len, struct pdk_sh_script **ret,
		 struct pdk_error *err);
void pdk_sh_script_free(struct pdk_sh_script *script);

/* Every simple command of the script, wherever nested, in source order. The
 * pointers stay valid until the script is freed. */
size_t pdk_sh_ncommands(const struct pdk_sh_script *script);
const struct pdk_sh_command *pdk_sh_command_at(const struct pdk_sh_script *script, size_t i);

/*
 * The script's arithmetic, which bash evaluates as expressions (a variable
 * named there has its value evaluated in turn, array subscripts and all): the
 * text of every $(( )), $[ ], (( )) and for (( )), delimiters included, and
 * each operand of -eq, -ne, -lt, -le, -gt and -ge in [[ ]], in the order read.
 */
size_t pdk_sh_narith(const struct pdk_sh_script *script);
const char *pdk_sh_arith_at(const struct pdk_sh_script *script, size_t i);

/*
 * Where an arithmetic text comes from when it is only part of a construct:
 * the subscript of ${a[x]}, ${#a[x]}, ${a[x]:-y} and [[ -v a[x] ]] (bash
 * evaluates an indexed array's subscript as an expression), and the offset
 * and length of ${s:x} and ${s:x:y}. Also the subscript of [[ -v 'a[$(cmd)]' ]]
 * whose $(...), ${...} or `...` is quoted, so that the parser found no command
 * there but bash runs it when it evaluates the subscript.
 */
struct pdk_sh_arith_src {
	const char *where; /* the construct as written ("${s:x:y}"), or NULL: the text itself */
	const char *array; /* a subscript of this array, or NULL */
	bool code;	   /* the text holds code the parser did not see as commands */
};
const struct pdk_sh_arith_src *pdk_sh_arith_src_at(const struct pdk_sh_script *script,
						   size_t i);

/* The values a for or select loop gives its variable, each as NAME=WORD with
 * the word's flags and place, in the order read. */
size_t pdk_sh_nloopvals(const struct pdk_sh_script *script);
const struct pdk_sh_word *pdk_sh_loopval_at(const struct pdk_sh_script *script, size_t i);

/* "<", ">>", "2>&1"-style spelling of an operator (without the fd). */
const char *pdk_sh_redir_op_name(enum pdk_sh_redir_op op);

/* Parses and frees: the entry point for fuzzers. Returns what pdk_sh_parse does. */
int pdk_sh_parse_bytes(const uint8_t *data, size_t size);

#endif
