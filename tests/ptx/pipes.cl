// Pipes (builtins/pipes.cl): a reservation is a compare-exchange of the pipe's counter at system
// scope (a pipe may be shared with the CPU device), after relaxed loads of the slots' sequences
// (ld.volatile is relaxed at system scope) and one acquiring fence; a commit is a releasing
// store of each sequence. The lanes of a warp that read or write together take one
// reservation: a ballot names them, and the leader's result reaches them through a shuffle
// among exactly those lanes.
// PTX contains: ld\.volatile\.global\.b32
// PTX contains: fence\.acq_rel\.sys
// PTX contains: atom\.relaxed\.sys\.cas\.b32
// PTX contains: st\.release\.sys\.global\.b32
// PTX contains: bar\.sync
// PTX contains: vote\.sync\.ballot\.b32

typedef struct {
  int key;
  float value[3];
} Record;

kernel void produce(write_only pipe Record out, global const Record *in, global int *status) {
  size_t i = get_global_id(0);
  status[i] = write_pipe(out, &in[i]);
}

kernel void consume(read_only pipe Record in, global Record *out, global int *status) {
  size_t i = get_global_id(0);
  status[i] = read_pipe(in, &out[i]);
}

kernel void reservations(read_only pipe int in, write_only pipe int out, global int *counts) {
  reserve_id_t group = work_group_reserve_read_pipe(in, get_local_size(0));
  int value = 0;
  if (is_valid_reserve_id(group))
    read_pipe(in, group, get_local_id(0), &value);
  work_group_commit_read_pipe(in, group);
  reserve_id_t sub = sub_group_reserve_write_pipe(out, get_sub_group_size());
  if (is_valid_reserve_id(sub))
    write_pipe(out, sub, get_sub_group_local_id(), &value);
  sub_group_commit_write_pipe(out, sub);
  reserve_id_t own = reserve_write_pipe(out, 2);
  if (is_valid_reserve_id(own)) {
    write_pipe(out, own, 0, &value);
    write_pipe(out, own, 1, &value);
    commit_write_pipe(out, own);
  }
  counts[get_global_id(0)] = get_pipe_num_packets(in) + get_pipe_max_packets(out);
}
