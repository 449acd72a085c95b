"""Breadth-first search from node 0 over a small graph in compressed rows (CSR): node u has
LENGTHS[u] neighbours (0 to 3), the next ones of ADJ (modulo V). One task keeps the work queue
of nodes to visit in a local array and walks it with a while loop, an edge or the next node
per iteration; it streams the nodes in the order it visits them (as many as are reachable) and
writes each node's distance (-1: unreachable)."""
from collections import deque

import numpy as np

import hwgen
from hwgen import Stream, int8, int32, uint2, uint8

TEST_SIZES = [{"V": 6}, {"V": 13}]


def build(V: int = 6):
    @hwgen.region
    def bfs(LENGTHS: uint2[V], ADJ: uint8[3 * V], D: int8[V], ORDER: uint8[V],
            COUNT: int32[1]):
        visits = Stream[uint8, 2, V]

        @hwgen.task
        def search():
            first: int32[V] = 0             # where each node's neighbours start in ADJ
            at: int32 = 0
            for n in range(V):
                first[n] = at
                at += LENGTHS[n]
            dist: int8[V] = -1
            queue: uint8[V + 1] = 0          # one past the last: written (as itself) when full
            dist[0] = 0
            head: int32 = 0
            tail: int32 = 1
            u: int32 = 0
            k: int32 = 0
            left: int32 = LENGTHS[0]
            visits.put(0)
            while hwgen.bounded(head < tail, max_iterations=4 * V):
                if left > 0:
                    w: int32 = ADJ[k] % V
                    if dist[w] < 0:
                        dist[w] = dist[u] + 1
                        queue[tail] = w
                        tail += 1
                        visits.put(w)
                    k += 1
                    left -= 1
                else:
                    head += 1
                    if head < tail:
                        u = queue[head]
                        k = first[u]
                        left = LENGTHS[u]
            visits.close()
            for n in range(V):
                D[n] = dist[n]

        @hwgen.task
        def writer():
            count: int32 = 0
            for v in visits:
                ORDER[count] = v
                count += 1
            COUNT[0] = count

    return bfs


def reference(LENGTHS, ADJ, V=6):
    starts = np.cumsum(LENGTHS) - LENGTHS
    dist, order, queue = [-1] * V, [0], deque([0])
    dist[0] = 0
    while queue:
        u = queue.popleft()
        for w in ADJ[starts[u]:starts[u] + LENGTHS[u]] % V:
            if dist[w] < 0:
                dist[w] = dist[u] + 1
                order.append(int(w))
                queue.append(int(w))
    return {"D": np.array(dist), "ORDER": np.array(order + [0] * (V - len(order))),
            "COUNT": np.array([len(order)])}
