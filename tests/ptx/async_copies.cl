// async_work_group_copy, wait_group_events and prefetch.

kernel void copies(global float *dst, global const float *src) {
  local float tile[64];
  event_t e = async_work_group_copy(tile, src + get_group_id(0) * 64, 64, 0);
  wait_group_events(1, &e);
  e = async_work_group_copy(dst + get_group_id(0) * 64, tile, 64, 0);
  wait_group_events(1, &e);
  prefetch(src, 16);
}
