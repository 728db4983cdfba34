/** An IPv4 peer on a dual-stack socket shows as `::ffff:a.b.c.d`; this is it as IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}
