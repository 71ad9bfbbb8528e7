// Program-scope variables of every kind, pointers among them: an uninitialized pointer is a
// null pointer, which Clang writes as a cast of the generic null (NVPTX needs a plain one).
global int counter;
global int table[4] = {1, 2, 3, 4};
global int *global cursor;
global int *global start = &table[1];
constant float scale = 2.5f;

kernel void step(global int *out, uint index) {
  if (cursor == 0)
    cursor = start + (index & 1);
  counter += *cursor;
  out[get_global_id(0)] = counter * (int)scale + table[index & 3];
}
