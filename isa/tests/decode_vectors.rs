//! isa.md Appendix B: encodings assembled with binutils 2.40 `epiphany-elf-as`
//! and their `epiphany-elf-objdump` disassembly, as a readable table. Each
//! row is (address, objdump text, size in bits, encoding with the first
//! halfword low).

use epsim_isa::decode::decode;
use epsim_isa::Op;

#[rustfmt::skip]
const VECTORS: &[(u32, &str, u32, u32)] = &[
    (0x0,   "mov r8,0x1234",          32, 0x2122068b),
    (0x4,   "movt r8,0xabcd",         32, 0x3ab219ab),
    (0x8,   "mov r1,0x12",            16, 0x2243),
    (0xa,   "testset r0,[r1,+r2]",    32, 0x00200549),
    (0xe,   "ldr r0,[r1,-0x5]",       32, 0x010006cc),
    (0x12,  "ldr r0,[r1],-0x5",       32, 0x030006cc),
    (0x16,  "ldrd r8,[r9,+0x2]",      32, 0x2400056c),
    (0x1a,  "ldrb r0,[r1,0x3]",       16, 0x0584),
    (0x1c,  "add r0,r1,-4",           16, 0x0613),
    (0x1e,  "add r0,r1,3",            16, 0x0593),
    (0x20,  "add r8,r1,-1024",        32, 0x2080041b),
    (0x24,  "add r8,r1,1023",         32, 0x207f079b),
    (0x28,  "sub r20,r21,100",        32, 0x480c963b),
    (0x2c,  "lsl r0,r1,0x1f",         16, 0x07f6),
    (0x2e,  "lsr r40,r41,0x7",        32, 0xb40604ef),
    (0x32,  "asr r2,r3,0x1",          16, 0x4c2e),
    (0x34,  "bitr r2,r3",             16, 0x4c1e),
    (0x36,  "bitr r20,r30",           32, 0x4c0e981f),
    (0x3a,  "fadd r0,r1,r2",          16, 0x0507),
    (0x3c,  "fadd r60,r61,r62",       32, 0xff87970f),
    (0x40,  "fix r0,r1",              16, 0x0467),
    (0x42,  "float r10,fp",           32, 0x24074c5f),
    (0x46,  "movts config,r0",        16, 0x0102),
    (0x48,  "movfs r0,status",        16, 0x0512),
    (0x4a,  "movts dma0config,r8",    32, 0x2012010f),
    (0x4e,  "movfs r9,coreid",        32, 0x2032251f),
    (0x52,  "movts memprotect,r1",    32, 0x0022290f),
    (0x56,  "movts lc,r20",           32, 0x4002950f),
    (0x5a,  "rts",                    32, 0x0402194f),
    (0x62,  "jalr r40",               32, 0x1402015f),
    (0x66,  "beq 0xca",               16, 0x3200),
    (0x68,  "bl 0x66",                16, 0xfff0),
    (0x6a,  "b 0x106a",               32, 0x000800e8),
    (0x6e,  "moveq r1,r2",            16, 0x2802),
    (0x70,  "movgtu r33,r2",          32, 0x8002282f),
    (0x74,  "str r0,[r1,-r2]",        32, 0x00100559),
    (0x78,  "strd r2,[r3],r4",        16, 0x4e75),
    (0x7a,  "trap 0x3",               16, 0x0fe2),
    (0x7c,  "idle",                   16, 0x01b2),
    (0x7e,  "gie",                    16, 0x0192),
    (0x80,  "gid",                    16, 0x0392),
    (0x82,  "rti",                    16, 0x01d2),
    (0x84,  "wand",                   16, 0x0182),
    (0x86,  "sync",                   16, 0x01f2),
    (0x88,  "nop",                    16, 0x01a2),
    (0x8a,  "bkpt",                   16, 0x01c2),
    (0x8c,  "mbkpt",                  16, 0x03c2),
    (0x8e,  "swi",                    16, 0x01e2),
    (0x90,  "fmul r0,r1,r2",          16, 0x0527),
    (0x92,  "fadd r40,r41,r42",       32, 0xb687050f),
    (0x0,   "add r1,r2,r3",           16, 0x299a),
    (0x2,   "add r33,r34,r35",        32, 0x920a299f),
    (0x6,   "sub r1,r2,r3",           16, 0x29ba),
    (0x8,   "and r1,r2,r3",           16, 0x29da),
    (0xa,   "orr r1,r2,r3",           16, 0x29fa),
    (0xc,   "eor r1,r2,r3",           16, 0x298a),
    (0xe,   "asr r1,r2,r3",           16, 0x29ea),
    (0x10,  "lsr r1,r2,r3",           16, 0x29ca),
    (0x12,  "lsl r1,r2,r3",           16, 0x29aa),
    (0x14,  "lsl r40,r41,r42",        32, 0xb68a052f),
    (0x18,  "add r1,r2,-4",           16, 0x2a13),
    (0x1a,  "sub r1,r2,3",            16, 0x29b3),
    (0x1c,  "add r40,r2,-1",          32, 0xa0ff0b9b),
    (0x20,  "sub r40,r41,1023",       32, 0xb47f07bb),
    (0x24,  "lsr r1,r2,0x5",          16, 0x28a6),
    (0x26,  "asr r40,r41,0x1f",       32, 0xb40e07ef),
    (0x2a,  "mov r7,0xff",            16, 0xffe3),
    (0x2c,  "mov r63,0xffff",         32, 0xeff2ffeb),
    (0x30,  "movt r63,0xffff",        32, 0xfff2ffeb),
    (0x34,  "fmadd r1,r2,r3",         16, 0x29b7),
    (0x36,  "fmsub r40,r41,r42",      32, 0xb687054f),
    (0x3a,  "fabs r1,r2",             32, 0x0007287f),
    (0x3e,  "fabs r40,r41",           32, 0xb407047f),
    (0x42,  "fsub r1,r2,r3",          16, 0x2997),
    (0x44,  "ldr r1,[r2,r3]",         16, 0x29c1),
    (0x46,  "ldr r40,[r41,-r42]",     32, 0xb6900549),
    (0x4a,  "ldr r1,[r2],r3",         16, 0x29c5),
    (0x4c,  "ldr r40,[r41],-r42",     32, 0xb690054d),
    (0x50,  "ldrh r1,[r2,0x7]",       16, 0x2ba4),
    (0x52,  "ldrh r40,[r41,-0x7ff]",  32, 0xb5ff07ac),
    (0x56,  "ldrb r40,[r41],+0x7ff",  32, 0xb6ff078c),
    (0x5a,  "ldrd r2,[r3,0x7]",       16, 0x4fe4),
    (0x5c,  "strd r40,[r41,-0x1]",    32, 0xb50004fc),
    (0x60,  "str r1,[r2,0x1]",        16, 0x28d4),
    (0x62,  "strh r1,[r2],r3",        16, 0x29b5),
    (0x64,  "strb r1,[r2],r3",        16, 0x2995),
    (0x66,  "str r40,[r41],+r42",     32, 0xb680055d),
    (0x6a,  "testset r40,[r41,+r42]", 32, 0xb6a00549),
    (0x6e,  "movfs r63,iret",         32, 0xe402e11f),
    (0x72,  "movts imask,r40",        32, 0xa402050f),
    (0x76,  "movfs r1,ilat",          32, 0x0402291f),
    (0x7a,  "movts ilatst,r2",        32, 0x04024d0f),
    (0x7e,  "movts ilatcl,r3",        32, 0x0402710f),
    (0x82,  "movfs r0,ipend",         32, 0x0402151f),
    (0x86,  "movfs r0,ctimer0",       32, 0x0402191f),
    (0x8a,  "movts ctimer1,r0",       32, 0x04021d0f),
    (0x8e,  "movfs r0,pc",            16, 0x0912),
    (0x90,  "movfs r0,debug",         16, 0x0d12),
    (0x92,  "movts dma1status,r0",    32, 0x04121d0f),
    (0x96,  "movfs r0,meshconfig",    32, 0x0032011f),
    (0x9a,  "movts meshmulticast,r0", 32, 0x0032090f),
    (0x9e,  "movts memstatus,r0",     32, 0x0022050f),
    (0xa2,  "movfs r2,config",        16, 0x4112),
    (0xa4,  "jr r3",                  16, 0x0d42),
    (0xa6,  "jalr r3",                16, 0x0d52),
    (0xa8,  "jr r63",                 32, 0x1c021d4f),
    (0xac,  "bgt 0xb0",               16, 0x0260),
    (0xae,  "blte 0xffffffae",        16, 0x8090),
    (0xb0,  "bbeq 0xb2",              16, 0x01a0),
    (0xb2,  "bbne 0xb4",              16, 0x01b0),
    (0xb4,  "bblt 0xb6",              16, 0x01c0),
    (0xb6,  "bblte 0xb8",             16, 0x01d0),
    (0xb8,  "bgtu 0xba",              16, 0x0120),
    (0xba,  "bgteu 0xbc",             16, 0x0130),
    (0xbc,  "blteu 0xbe",             16, 0x0140),
    (0xbe,  "bltu 0xc0",              16, 0x0150),
    (0xc0,  "bgte 0xc2",              16, 0x0170),
    (0xc2,  "blt 0xc4",               16, 0x0180),
    (0xc4,  "bne 0xc6",               16, 0x0110),
    (0xc6,  "b 0xc8",                 16, 0x01e0),
    (0xc8,  "bl 0xca",                16, 0x01f0),
    (0xca,  "b 0xcc",                 32, 0x000001e8),
    (0xce,  "bl 0xff0000ce",          32, 0x800000f8),
    (0xd2,  "trap 0x7",               16, 0x1fe2),
    (0xd4,  "movbeq r1,r2",           16, 0x28a2),
    (0xd6,  "movblte r40,r41",        32, 0xb40204df),
    (0xda,  "movlt r1,r2",            16, 0x2882),
    (0xdc,  "mov r1,r2",              16, 0x28e2),
    (0xde,  "mov r40,r41",            32, 0xb40204ef),
];

#[test]
fn appendix_b_vectors() {
    let mut bad = Vec::new();
    for &(addr, text, bits, word) in VECTORS {
        let d = decode(word);
        let got = d.disasm(addr, word);
        if got != text || u32::from(d.len) * 8 != bits || d.op == Op::Unimpl {
            bad.push(format!(
                "{addr:#x} {word:#010x}: want {text:?} ({bits}), got {got:?} ({})",
                d.len * 8
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn appendix_b_branch_targets() {
    for &(addr, text, _, word) in VECTORS {
        let d = decode(word);
        match d.branch_target(addr) {
            Some(t) => assert!(text.ends_with(&format!(" {t:#x}")), "{text}: {t:#x}"),
            None => assert!(!matches!(d.op, Op::Bcond { .. }), "{text}"),
        }
    }
}
