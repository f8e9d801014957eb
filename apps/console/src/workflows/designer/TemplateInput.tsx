import { Textarea, TextInput } from '@mantine/core';
import { useId, useRef, useState, type KeyboardEvent } from 'react';

interface Props {
  label: string;
  value: string;
  onChange: (v: string) => void;
  /** What `{{` may complete to: `inputs.po`, `nodes.review.output`... */
  suggestions: string[];
  description?: string;
  error?: string;
  single?: boolean;
  required?: boolean;
}

/**
 * A text that may hold `{{ … }}` templates: typing `{{` lists the run inputs and the outputs of the nodes before this
 * one; arrows choose, Enter or Tab inserts, Escape closes. A combobox with a listbox, so screen readers follow.
 */
export function TemplateInput({ label, value, onChange, suggestions, description, error, single, required }: Props) {
  const listId = useId();
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const before = cursor === null ? '' : value.slice(0, cursor);
  const typing = /\{\{\s*([\w.-]*)$/.exec(before);
  const options = typing ? suggestions.filter((s) => s.startsWith(typing[1]) && s !== typing[1]).slice(0, 8) : [];
  const open = options.length > 0 && !closed;
  const at = Math.min(active, options.length - 1);

  const insert = (s: string) => {
    if (!typing || cursor === null) return;
    const head = before.slice(0, typing.index) + `{{${s}}}`;
    onChange(head + value.slice(cursor));
    setCursor(head.length);
    requestAnimationFrame(() => ref.current?.setSelectionRange(head.length, head.length));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((at + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      insert(options[at]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setClosed(true);
    }
  };
  const common = {
    ref,
    label,
    description,
    error,
    required,
    value,
    role: 'combobox',
    'aria-autocomplete': 'list' as const,
    'aria-expanded': open,
    'aria-controls': listId,
    'aria-activedescendant': open ? `${listId}-${at}` : undefined,
    onKeyDown,
    onBlur: () => setCursor(null),
    onSelect: (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      setCursor(e.currentTarget.selectionStart),
    onChange: (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
      setClosed(false);
      setActive(0);
      setCursor(e.currentTarget.selectionStart);
      onChange(e.currentTarget.value);
    },
  };
  return (
    <div style={{ position: 'relative' }}>
      {single ? <TextInput {...common} /> : <Textarea autosize minRows={2} {...common} />}
      <ul
        id={listId}
        role="listbox"
        aria-label={`Values for ${label}`}
        hidden={!open}
        style={{
          margin: 0,
          padding: 4,
          listStyle: 'none',
          border: '1px solid #ced4da',
          borderRadius: 4,
          background: '#fff',
        }}
      >
        {open &&
          options.map((s, i) => (
            <li
              key={s}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === at}
              onMouseDown={(e) => {
                e.preventDefault();
                insert(s);
              }}
              style={{
                padding: '2px 6px',
                fontFamily: 'monospace',
                background: i === at ? '#d0ebff' : undefined,
                color: '#212529',
              }}
            >
              {`{{${s}}}`}
            </li>
          ))}
      </ul>
    </div>
  );
}
