import java.io.FileInputStream;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * A certificate's fingerprint as TAK Server computes it for UserAuthenticationFile.xml
 * (TAK-Product-Center/Server, takserver-common com/bbn/marti/remote/util/RemoteUtil.java,
 * getCertSHA256Fingerprint: SHA-256 of getEncoded(), DatatypeConverter.printHexBinary (upper
 * case), a colon before every byte but the first). Prints it. Usage: java TakFingerprint.java PEM
 */
public class TakFingerprint {
  public static void main(String[] args) throws Exception {
    X509Certificate cert;
    try (FileInputStream in = new FileInputStream(args[0])) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
    StringBuilder hex = new StringBuilder();
    for (byte b : hash) hex.append(String.format("%02X", b));
    StringBuilder fingerprint = new StringBuilder();
    for (int i = 0; i < hex.length(); i++) {
      if (i > 0 && i % 2 == 0) fingerprint.append(':');
      fingerprint.append(hex.charAt(i));
    }
    System.out.println(fingerprint);
  }
}
