/**
 * A cycle in a directed graph (`edges`: node -> successors), as the path `a -> b -> ... -> a`, or null. Only nodes
 * reachable from `from` are searched (default: every node). Successors missing from `edges` have no edges.
 */
export function findCycle(
  edges: ReadonlyMap<string, readonly string[]>,
  from: Iterable<string> = edges.keys(),
): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const id of from) {
    const found = visit(id);
    if (found) return found;
  }
  return null;
}
