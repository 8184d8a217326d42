#ifndef INTENT_CLI_MAIN_H
#define INTENT_CLI_MAIN_H
namespace intent::cli {
/// Runs the intentc command line; returns the process exit code.
int main(int argc, char **argv);
} // namespace intent::cli
#endif
