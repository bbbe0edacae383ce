//! PLACEHOLDER (being written): disassembly in epiphany-elf-objdump syntax.
