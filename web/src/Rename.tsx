// Renaming a block from its card: a click or the keyboard opens the form, Escape or Cancel closes it.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { controller, type Answer, type Block } from './api';
import type { Role } from './blocks';
import { isMadeUpName } from './explain';
import type { CardAnswer } from './CardFields';

/** One click to rename (links to the block follow, as blocks/rename does). New sensors with a made-up name ask for one. */
export function Rename({ block, role, answer }: { block: Block; role: Role; answer: CardAnswer }) {
  const asks = role === 'sensor' && isMadeUpName(block.id);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  // Opened from "Rename" (a click or the keyboard): the name field takes the focus, and closing
  // the form gives it back to "Rename", so the keyboard goes on where it was.
  const field = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // A layout effect runs in the same task as the render that shows the field or the button; a plain
  // effect waits for the next frame, and keys typed before it went to the page and were lost.
  const [focusTo, setFocusTo] = useState<'field' | 'button' | null>(null);
  useLayoutEffect(() => {
    if (focusTo === 'field') field.current?.focus();
    if (focusTo === 'button') button.current?.focus();
    if (focusTo) setFocusTo(null);
  }, [focusTo]);
  const close = () => {
    setOpen(false);
    setName('');
    answer.withdraw('rename');
    setFocusTo('button');
  };
  const save = async (e: Event) => {
    e.preventDefault();
    const desired = name.trim();
    if (!desired) return answer.refuse('not renamed: the new name is empty', 'rename');
    const ok = await answer.run(
      controller<Block>('blocks/rename', { existing: block.id, desired }) as Promise<Answer<Block>>,
      `renamed to ${desired}`,
    );
    if (ok) setOpen(false);
  };
  if (!open && !asks)
    return (
      <button
        type="button"
        class="link"
        ref={button}
        onClick={() => {
          setOpen(true);
          setFocusTo('field');
        }}
      >
        Rename
      </button>
    );
  return (
    <form
      class="field rename"
      onSubmit={save}
      data-testid="rename"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) close();
      }}
    >
      <label>
        {asks && !open ? 'New sensor: name it' : 'New name'}
        <input
          ref={field}
          value={name}
          placeholder="e.g. Beer"
          onInput={(e) => {
            setName((e.target as HTMLInputElement).value);
            answer.edited();
          }}
        />
      </label>
      <button type="submit">Save name</button>
      {open && !asks && (
        <button type="button" class="link" onClick={close}>
          Cancel
        </button>
      )}
    </form>
  );
}
