import { Textarea } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { asDefinition, type WfDefinition } from '../graph';

/** The definition as JSON, for those who want it: edits apply to the canvas as soon as they parse, and back. */
export function AdvancedJson({
  def,
  onChange,
  readOnly,
}: {
  def: WfDefinition;
  onChange: (d: WfDefinition) => void;
  readOnly: boolean;
}) {
  const [text, setText] = useState(() => JSON.stringify(def, null, 2));
  const mine = useRef<WfDefinition | null>(null);
  useEffect(() => {
    // A change made elsewhere (the canvas) rewrites the text; one made here keeps what was typed.
    if (def !== mine.current) setText(JSON.stringify(def, null, 2));
  }, [def]);
  const parsed = (() => {
    try {
      return asDefinition(JSON.parse(text));
    } catch {
      return null;
    }
  })();
  return (
    <Textarea
      label="Definition (JSON)"
      description="Import: paste a definition here. Export: copy it. The canvas follows as soon as it is valid."
      autosize
      minRows={12}
      readOnly={readOnly}
      styles={{ input: { fontFamily: 'monospace' } }}
      value={text}
      error={parsed ? undefined : 'Not a definition yet: valid JSON with nodes (id, type) and edges (from, to)'}
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        try {
          const d = asDefinition(JSON.parse(next));
          if (d) {
            mine.current = d;
            onChange(d);
          }
        } catch {
          /* shown as the field's error */
        }
      }}
    />
  );
}
