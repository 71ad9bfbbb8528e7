// Programs written for NVIDIA's driver put PTX in GNU `asm` statements (hashcat's prmt and lop3,
// CLBlast's lane id): the GPU device accepts them and passes their text into the PTX it writes.
// PTX contains: prmt\.b32
// PTX contains: mov\.u32 %r[0-9]+, %laneid;

uint byte_permute(uint a, uint b, uint selector) {
  uint r;
  asm volatile("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
  return r;
}

int lane(void) {
  int r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

kernel void permute(global uint *words) {
  size_t i = get_global_id(0);
  words[i] = byte_permute(words[i], words[i + 1], 0x5140) + lane();
}
