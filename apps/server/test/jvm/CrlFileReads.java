import java.io.FileInputStream;
import java.io.InputStream;
import java.security.cert.CRL;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;

/**
 * How many CRLs of one PEM file Java takes, read the two ways TAK Server 5.7 reads a CRL file:
 * `generateCRL` (one CRL: SSLConfig.initTrust, the streaming inputs, for each <crl>) and
 * `generateCRLs` (every CRL: how Tomcat reads certificateRevocationListFile, which
 * ServerConfiguration sets from the first <crl> for the web connectors).
 *
 * <p>`java CrlFileReads.java FILE`; prints "generateCRL: ISSUER" and "generateCRLs: ISSUER; ...".
 */
public class CrlFileReads {
  public static void main(String[] args) throws Exception {
    CertificateFactory factory = CertificateFactory.getInstance("X509");
    try (InputStream in = new FileInputStream(args[0])) {
      System.out.println("generateCRL: " + ((X509CRL) factory.generateCRL(in)).getIssuerX500Principal());
    }
    StringBuilder all = new StringBuilder();
    try (InputStream in = new FileInputStream(args[0])) {
      for (CRL crl : factory.generateCRLs(in)) {
        if (all.length() > 0) all.append("; ");
        all.append(((X509CRL) crl).getIssuerX500Principal());
      }
    }
    System.out.println("generateCRLs: " + all);
  }
}
