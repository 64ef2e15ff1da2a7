// The documents of a backup that are not in the controller's namespace. A backup holds the
// documents of the service that saved it, under its service id; loaded on a controller of another
// id they are that service's, not this one's. Brewblox's Spark service neither carries documents
// in a backup (its `store` is its block names) nor moves a namespace, so none is moved here: they
// are left out, told once per namespace with why and how to keep them, not once per document.
import { isServiceId } from '../shared/service-id.js';

/** The documents left out, by the top level of their namespace (the service that saved them). */
export class ForeignDocuments {
  private readonly byRoot = new Map<string, string[]>();

  add(namespace: string, id: string): void {
    const root = namespace.split(':')[0]!;
    const ids = this.byRoot.get(root) ?? [];
    ids.push(namespace === root ? id : `${namespace.slice(root.length + 1)}:${id}`);
    this.byRoot.set(root, ids);
  }

  get size(): number {
    return this.byRoot.size;
  }

  /** One line per namespace: what was left out, why, and how to keep it; `kept`: no document of the backup was taken. */
  messages(own: string, kept: boolean): string[] {
    return [...this.byRoot].map(([root, ids]) => {
      const shown =
        ids
          .slice(0, 5)
          .map((id) => `'${id}'`)
          .join(', ') + (ids.length > 5 ? ', ...' : '');
      const howto = [
        ...(isServiceId(root) ? [`load the backup on a controller started with --service-id ${root}`] : []),
        `change the start of their namespace from '${root}' to '${own}' in the backup file and load it again`,
      ].join(', or ');
      return (
        `store: ${ids.length} document${ids.length === 1 ? '' : 's'} (${shown}) in namespace '${root}' left out: a backup ` +
        `brings back only the documents of this controller's namespace '${own}', and these are of the service ` +
        `'${root}' that saved it${kept ? "; the controller's documents were kept as they were" : ''}. To keep them, ${howto}`
      );
    });
  }
}
