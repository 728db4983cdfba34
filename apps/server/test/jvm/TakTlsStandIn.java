import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS listener set up the way TAK Server sets up its streaming input from CoreConfig.xml's
 * <tls keystore="JKS" ... truststore="JKS" ...><crl crlFile=.../></tls> (as its SSLConfig
 * does): a JKS key store with SunX509, the truststore's certificates as PKIX trust anchors, the
 * CRL file loaded once at start into a CertStore, and a client certificate required. It stands in
 * for TAK Server in test/tak-jvm.test.ts, with the files docs/tak.md makes.
 *
 * <p>`java TakTlsStandIn.java PORT KEYSTORE TRUSTSTORE PASSWORD CRL`; prints "ready" once it
 * listens on 127.0.0.1, one line per handshake ("accepted CN=..." or "refused: reason"), and exits
 * when its standard input closes.
 */
public class TakTlsStandIn {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    char[] password = args[3].toCharArray();

    KeyStore keys = KeyStore.getInstance("JKS");
    try (InputStream in = new FileInputStream(args[1])) {
      keys.load(in, password);
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance("SunX509");
    keyManagers.init(keys, password);

    KeyStore trust = KeyStore.getInstance("JKS");
    try (InputStream in = new FileInputStream(args[2])) {
      trust.load(in, password);
    }
    Set<TrustAnchor> anchors = new HashSet<>();
    for (String alias : Collections.list(trust.aliases())) {
      if (trust.isCertificateEntry(alias)) {
        anchors.add(new TrustAnchor((X509Certificate) trust.getCertificate(alias), null));
      }
    }
    PKIXBuilderParameters pkix = new PKIXBuilderParameters(anchors, null);
    X509CRL crl;
    try (InputStream in = new FileInputStream(args[4])) {
      crl = (X509CRL) CertificateFactory.getInstance("X509").generateCRL(in);
    }
    pkix.addCertStore(
        CertStore.getInstance("Collection", new CollectionCertStoreParameters(List.of(crl))));
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(new CertPathTrustManagerParameters(pkix));

    SSLContext context = SSLContext.getInstance("TLSv1.2");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), new SecureRandom());
    SSLServerSocket server =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(port, 16, InetAddress.getByName("127.0.0.1"));
    server.setEnabledProtocols(new String[] {"TLSv1.2", "TLSv1.3"});
    server.setNeedClientAuth(true);

    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.in.read() != -1) {}
              } catch (Exception ignored) {
                // The parent went away either way.
              }
              System.exit(0);
            });
    watchdog.setDaemon(true);
    watchdog.start();

    System.out.println("ready");
    System.out.flush();
    while (true) {
      SSLSocket socket = (SSLSocket) server.accept();
      try (socket) {
        socket.startHandshake();
        X509Certificate client = (X509Certificate) socket.getSession().getPeerCertificates()[0];
        System.out.println("accepted " + client.getSubjectX500Principal().getName());
        socket.getInputStream().read();
      } catch (Exception e) {
        System.out.println("refused: " + e.getMessage());
      }
      System.out.flush();
    }
  }
}
