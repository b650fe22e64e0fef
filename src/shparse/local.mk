# src/shparse/local.mk - the sh -c parser: entry point and shared helpers, lexer,
# here-documents, grammar.
libpaddock_a_SOURCES += src/shparse/shparse.c src/shparse/shparse.h src/shparse/shparse_int.h \
	src/shparse/shparse_lex.c src/shparse/shparse_heredoc.c src/shparse/shparse_grammar.c
