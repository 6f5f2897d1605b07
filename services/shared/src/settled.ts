/** Resolves once `promise` settles, either way, or after `ms`: a bounded wait that never throws. */
export async function settled(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.then(noop, noop), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}
