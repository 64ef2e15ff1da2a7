// The subset of SMBus/I2C operations the drivers need. The real backend wraps i2c-bus; the
// simulator implements the same interface, so the DS2482 driver code is exercised either way.
export interface I2cBus {
  /** Optional short name used in master names, e.g. `1` for /dev/i2c-1. */
  readonly name?: string;
  /** Write one byte with no command (SMBus send byte). */
  sendByte(address: number, byte: number): Promise<void>;
  /** Write a command byte followed by one data byte (SMBus write byte data). */
  writeByte(address: number, command: number, byte: number): Promise<void>;
  /** Read one byte with no command (SMBus receive byte). */
  receiveByte(address: number): Promise<number>;
  /** Plain I2C write of `bytes` (the sensors' command and register-pointer writes). */
  i2cWrite(address: number, bytes: Uint8Array): Promise<void>;
  /** Plain I2C read of `length` bytes. */
  i2cRead(address: number, length: number): Promise<Uint8Array>;
  /** Write a command (register) byte, then read one byte (SMBus read byte data). */
  readByte(address: number, command: number): Promise<number>;
  /** Addresses that acknowledge, restricted to the given range. */
  scan(first: number, last: number): Promise<number[]>;
  close(): Promise<void>;
}
