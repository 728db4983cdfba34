/** Full page loads ("reload, go to ..."): a fresh sign-in resolution on arrival. */
export function reloadTo(path: string): void {
  window.location.assign(path);
}
