// intentc: the Intent kernel compiler. The CLI lives in src/CLI; this is its entry point.
#include "intent/CLI/Main.h"

int main(int argc, char **argv) { return intent::cli::main(argc, argv); }
